import { redactedJson } from '../crypto/redact.js';
import { Prisma } from '../generated/prisma/client.js';
import type { EventType } from './types.js';

type Tx = Prisma.TransactionClient;

export interface NewEvent {
  workspaceId: string;
  type: EventType;
  /** `monitors/<id>`, `incidents/<id>`, `maintenance/<id>`. */
  subject: string;
  /** Stored with every secret field redacted (redactSecrets): a monitor's `pingUrl` shows `"<redacted>"`. */
  data: object;
  /** Events derived from time passing are recorded once per key (a second insert with the key does nothing). */
  key?: string;
}

/**
 * Records events in the caller's transaction: they commit with the change they describe, or not at all (an outbox).
 * The one way code writes the log; status transitions are written by triggers into the same table (migration
 * 20261125234900_events_and_webhooks), and both are ordered by the writing transaction's id. One statement, in the
 * given order, however many there are (one event, or a config apply's thousand).
 *
 * The log is durable (30 days) and every webhook receives it, so `data` is stored with its secrets redacted, as
 * audit changes are (docs/decisions.md, "Secrets in the event log"); the triggers' events carry none.
 */
export async function recordEvents(tx: Tx, events: readonly NewEvent[]): Promise<void> {
  if (events.length > 0) await tx.$executeRaw(eventsInsert(events));
}

/**
 * The statement of recordEvents, for writeTogether as well (the last write of creates grouped in one
 * transaction): its text is the same however many events it holds. The events travel as one JSON array, each `data`
 * redacted (redactedJson).
 */
export function eventsInsert(events: readonly NewEvent[]): Prisma.Sql {
  const rows = events.map(
    (e) =>
      `{"workspaceId":${JSON.stringify(e.workspaceId)},"type":${JSON.stringify(e.type)},` +
      `"subject":${JSON.stringify(e.subject)},"key":${JSON.stringify(e.key ?? null)},"data":${redactedJson(e.data)}}`,
  );
  return Prisma.sql`
    INSERT INTO events (id, "workspaceId", type, subject, data, key)
    SELECT gen_random_uuid(), (e->>'workspaceId')::uuid, e->>'type', e->>'subject', e->'data', e->>'key'
      FROM jsonb_array_elements(${`[${rows.join(',')}]`}::jsonb) WITH ORDINALITY AS t(e, n)
     ORDER BY t.n
    ON CONFLICT ("workspaceId", key) WHERE key IS NOT NULL DO NOTHING`;
}

/**
 * incident.updated: an update posted on an incident. The `incident` object is the one every incident event
 * carries (built by the SQL function the triggers use), plus the `update`.
 */
export async function recordIncidentUpdated(
  tx: Tx,
  incidentId: string,
  update: { id: string; status: string; message: string; createdAt: string },
): Promise<void> {
  await tx.$executeRaw`
    INSERT INTO events (id, "workspaceId", type, subject, data)
    SELECT gen_random_uuid(), i."workspaceId", 'incident.updated', 'incidents/' || i.id,
      incident_event_data(i) || jsonb_build_object('update', ${JSON.stringify(update)}::jsonb)
    FROM incidents i WHERE i.id = ${incidentId}::uuid`;
}
