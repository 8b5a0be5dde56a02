import { EVENT_TYPE_PREFIX, EVENT_TYPES, MONITOR_TYPES, REDACTED, type EventType } from '@statusvane/shared';
import { dateTime, z } from '../../schemas/zod.js';
import { INCIDENT_IMPACTS, INCIDENT_STATUSES } from '../incidents/incident-record.js';
import { incidentUpdateRecordSchema } from '../incidents/incident-update-record.js';
import { monitorRecordSchema } from '../monitors/monitor-record.js';

/*
 * What each event type's `data` holds, as it is written: monitor.created and monitor.updated by the monitor
 * services (and config apply, the admin CLI) with recordEvents, monitor.deleted by deleteMonitor, the maintenance
 * events by packages/shared/src/events/maintenance-events.ts, incident.updated by recordIncidentUpdated; the
 * incident transitions and monitor.status_changed by the database's triggers (incident_event_data and event_data in
 * prisma/migrations). test/typed-client.test.ts reads a real event of every type against these.
 */

/** A monitor record as the API answers it, with its `pingUrl` (its path is the ping secret) redacted. */
const eventMonitorSchema = monitorRecordSchema
  .extend({
    pingUrl: z.union([z.literal(REDACTED), z.null()]).openapi({
      description: 'A heartbeat\'s ping URL holds its secret: always `"<redacted>"` here (null for other types).',
    }),
  })
  .openapi('EventMonitor', {
    description: 'The monitor as GET /monitors/{id} answered it after the write, but for `pingUrl`.',
  });

const eventIncidentSchema = z
  .object({
    id: z.uuid(),
    title: z.string(),
    status: z.enum(INCIDENT_STATUSES),
    impact: z.enum(INCIDENT_IMPACTS),
    source: z.enum(['monitor', 'manual']),
    monitorId: z.uuid().nullable(),
    startedAt: dateTime,
    acknowledgedAt: dateTime.nullable(),
    resolvedAt: dateTime.nullable(),
  })
  .openapi('EventIncident', { description: 'The incident as it stood when the event was written.' });

const eventMaintenanceSchema = z
  .object({
    id: z.uuid(),
    title: z.string(),
    startsAt: dateTime,
    endsAt: dateTime,
    cancelledAt: dateTime.nullable(),
    componentIds: z.array(z.uuid()).openapi({ description: 'Empty: the whole workspace.' }),
  })
  .openapi('EventMaintenance', { description: 'The maintenance window as it stood when the event was written.' });

/** The statuses checks write (a record's `paused` and `maintenance` are worked out when it is read). */
const CHECKED_STATUSES = ['up', 'degraded', 'down'] as const;

const monitorData = z.object({ monitor: eventMonitorSchema });
const incidentData = z.object({ incident: eventIncidentSchema });
const maintenanceData = z.object({ maintenance: eventMaintenanceSchema });

/** Each event type: when it is written, and its `data`. */
const EVENT_DATA = {
  'monitor.created': { when: 'A monitor was created (POST /monitors, config apply).', data: monitorData },
  'monitor.updated': {
    when: 'A monitor was changed through the API, config apply or the admin CLI (not by what its checks observe).',
    data: monitorData,
  },
  'monitor.deleted': {
    when: 'A monitor was deleted (DELETE /monitors/{id}, config apply with `prune`).',
    data: z.object({ monitor: z.object({ id: z.uuid(), name: z.string() }) }),
  },
  'monitor.status_changed': {
    when:
      "A monitor's status changed with its checks' results (the worker's write). Pausing and maintenance show in the " +
      'record (`monitor.updated`, `maintenance.*`), not here.',
    data: z.object({
      monitor: z.object({
        id: z.uuid(),
        name: z.string().openapi({ description: 'Its name at the change.' }),
        type: z.enum(MONITOR_TYPES),
      }),
      previousStatus: z.enum(['pending', ...CHECKED_STATUSES]).openapi({ description: '`pending`: never checked.' }),
      status: z.enum(CHECKED_STATUSES),
      checkedAt: dateTime
        .nullable()
        .openapi({ description: 'The last check when the status changed; null before one.' }),
    }),
  },
  'incident.opened': {
    when: 'An incident opened: a monitor failed its openThreshold, or one was opened by hand (POST /incidents).',
    data: incidentData,
  },
  'incident.acknowledged': { when: 'An open incident was acknowledged.', data: incidentData },
  'incident.resolved': {
    when: 'An incident was resolved: its monitor recovered, by hand, or its monitor was deleted.',
    data: incidentData,
  },
  'incident.updated': {
    when: 'An update was posted on an incident (POST /incidents/{id}/updates).',
    data: z.object({
      incident: eventIncidentSchema,
      update: incidentUpdateRecordSchema.openapi({
        description: 'The update as POST /incidents/{id}/updates answered it.',
      }),
    }),
  },
  'maintenance.started': {
    when: 'A maintenance window started: its start came, or it was started by hand. Once per window.',
    data: maintenanceData,
  },
  'maintenance.completed': {
    when: 'A maintenance window ended: its end came, or it was completed by hand. Once per window.',
    data: maintenanceData,
  },
  'maintenance.cancelled': {
    when: 'A maintenance window was cancelled (it then neither starts nor completes).',
    data: maintenanceData,
  },
} as const satisfies Record<EventType, { when: string; data: z.ZodObject }>;

const pascal = (type: string) =>
  type
    .split(/[._]/)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');

/** A CloudEvents 1.0 event of one type (structured JSON), as GET /events lists it and webhooks deliver it. */
function eventSchemaOf<T extends EventType>(type: T) {
  const { when, data } = EVENT_DATA[type];
  return z
    .object({
      specversion: z.literal('1.0'),
      id: z.uuid().meta({ description: 'Unique per event; a delivery sent twice carries the same id.' }),
      type: z.literal(`${EVENT_TYPE_PREFIX}${type}` as const),
      source: z.string().meta({ example: '/workspaces/6f1c2a4e-0000-4000-8000-000000000001' }),
      subject: z.string().meta({ example: `${type.split('.')[0]}s/1f0c7a52-3d3c-4c55-9d87-5d2f2b0a8e11` }),
      time: z.iso.datetime(),
      datacontenttype: z.literal('application/json'),
      sequence: z.string().meta({
        description: "The event's position in the log (extension attribute): a cursor; later events compare greater.",
      }),
      data,
    })
    .openapi(`${pascal(type)}Event`, { description: `\`${type}\`: ${when}` });
}

type EventSchemas = { [T in EventType]: ReturnType<typeof eventSchemaOf<T>> };
type AnyEventSchema = EventSchemas[EventType];

/** Every event type's schema, by its short name (the webhooks of the OpenAPI document list them one by one). */
export const EVENT_SCHEMAS = Object.fromEntries(EVENT_TYPES.map((t) => [t, eventSchemaOf(t)])) as EventSchemas;

/** A CloudEvents 1.0 event (structured JSON), as GET /events lists it and webhooks deliver it: one of the types. */
export const eventRecordSchema = z
  .discriminatedUnion('type', EVENT_TYPES.map((t) => EVENT_SCHEMAS[t]) as [AnyEventSchema, ...AnyEventSchema[]])
  .openapi('Event', {
    description:
      'One event of the log, told apart by `type` (`com.statusvane.` and the short name). Secret fields never appear: ' +
      'a monitor\'s `pingUrl` shows `"<redacted>"`.',
  });
export type EventRecord = z.infer<typeof eventRecordSchema>;

export const eventPageSchema = z
  .object({
    data: z.array(eventRecordSchema),
    nextCursor: z.string().meta({
      description: 'Pass as `after` to get what follows; always present (the same cursor again when nothing is newer).',
    }),
  })
  .openapi('EventPage');
