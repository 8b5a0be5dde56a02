/**
 * Zod schemas for the response records, which the code builds with plain mappers (toMonitorRecord,
 * toMaintenanceRecord, toIncidentRecord, toStatusPageRecord, layoutOf, the response-times service), written from
 * management-api.md and decisions.md and checked against those mappers (the escalation state against
 * getIncidentEscalation, by test/escalation.test.ts). The inputs are not here: the document uses the validators of
 * packages/shared directly.
 *
 * Records are plain (non-strict) objects: a client must tolerate new fields.
 */
import {
  DELIVERY_CHANNELS,
  ERROR_CODES,
  HTTP_METHODS,
  MAINTENANCE_STATUSES,
  MONITOR_TYPES,
  PERIODS,
  jsonAssertionSchema,
  type Period,
} from '@statusvane/shared';
import { z } from './zod.js';

const uuid = z.uuid();
/** The records write `Date.toISOString()`: UTC with a `Z`. */
const dateTime = z.iso.datetime();

export const MONITOR_STATUSES = ['pending', 'up', 'degraded', 'down', 'paused', 'maintenance'] as const;
export const INCIDENT_STATUSES = ['open', 'acknowledged', 'resolved'] as const;
export const INCIDENT_IMPACTS = ['none', 'minor', 'major', 'critical'] as const;
export const INCIDENT_SOURCES = ['monitor', 'manual'] as const;
export const DELIVERY_STATUSES = ['pending', 'sent', 'failed', 'skipped'] as const;
const RESPONSE_TIME_PERIODS = Object.keys(PERIODS) as [Period, ...Period[]];

// ---------------------------------------------------------------------------------------------------------------
// Envelope parts
// ---------------------------------------------------------------------------------------------------------------

export const paginationSchema = z
  .object({
    page: z.number().int().min(1).openapi({ description: 'The page returned, 1-indexed.' }),
    perPage: z.number().int().min(1).max(250).openapi({ description: 'Items per page.' }),
    total: z.number().int().min(0).openapi({ description: 'All matching items, across every page.' }),
    totalPages: z.number().int().min(0).openapi({ description: '`ceil(total / perPage)`; 0 when `total` is 0.' }),
  })
  .openapi('Pagination', {
    description: 'In every list response. A page past the end returns `data: []` with correct pagination.',
  });

const issueSchema = z
  .object({
    path: z.string().openapi({ description: 'The offending field, as `a.b[0].c`; empty for the body as a whole.' }),
    message: z.string(),
  })
  .openapi('ValidationIssue');

const workspaceChoiceSchema = z.object({ id: uuid, slug: z.string(), name: z.string() }).openapi('WorkspaceChoice');

export const errorEnvelopeSchema = z
  .object({
    error: z.object({
      code: z.enum(ERROR_CODES).openapi({
        description:
          'invalid_request 400 (413 for a body over 256 KiB), unauthorized 401, forbidden 403, not_found 404, ' +
          'conflict 409, rate_limited 429, internal 500 (503 when a dependency is unavailable: safe to retry).',
      }),
      message: z.string().openapi({ description: 'A human-readable explanation; do not parse it.' }),
      details: z
        .object({
          issues: z
            .array(issueSchema)
            .optional()
            .openapi({ description: 'For invalid input: one entry per offending field.' }),
          workspaces: z.array(workspaceChoiceSchema).optional().openapi({
            description:
              'For a personal token in several workspaces sent without `X-Statusvane-Workspace`: the choices.',
          }),
        })
        .optional()
        .openapi({ description: 'Optional structured details; other keys may appear.' }),
    }),
  })
  .openapi('Error', { description: 'Every error response has this shape.' });

const componentRefSchema = z
  .object({ id: uuid, name: z.string() })
  .openapi('ComponentRef', { description: 'A public component.' });

// ---------------------------------------------------------------------------------------------------------------
// Monitors (the inputs come from packages/shared; this is the record of apps/api/.../monitor-record.ts)
// ---------------------------------------------------------------------------------------------------------------

export const monitorRecordSchema = z
  .object({
    id: uuid,
    name: z.string(),
    componentId: uuid.openapi({ description: "The monitor's public component, created with the monitor." }),
    type: z.enum(MONITOR_TYPES),
    target: z.string().nullable().openapi({ description: 'The URL (http) or `host:port` (tcp); null for heartbeat.' }),
    method: z.enum(HTTP_METHODS).openapi({ description: 'HTTP method of the check.' }),
    intervalSeconds: z.number().int(),
    timeoutMs: z.number().int(),
    openThreshold: z.number().int(),
    resolveThreshold: z.number().int(),
    expectedStatusCodes: z.array(z.number().int()).openapi({ description: 'Empty: any 2xx or 3xx is healthy.' }),
    keyword: z.string().nullable(),
    keywordAbsent: z.string().nullable(),
    degradedAfterMs: z.number().int().nullable(),
    latencyThresholdMs: z.number().int().nullable(),
    headerNames: z
      .array(z.string())
      .openapi({ description: 'Names of the custom request headers. Their values are write-only.' }),
    hasBody: z.boolean().openapi({ description: 'Whether a request body is stored. The body itself is write-only.' }),
    contentType: z.string(),
    // A union with null, not `.nullable()`: the generator would otherwise fold the null into the shared
    // JsonAssertion component, making it nullable on create too.
    jsonAssertion: z
      .union([jsonAssertionSchema, z.null()])
      .openapi({ description: 'The JSON assertion, or null when none is set.' }),
    environment: z.string(),
    metadata: z
      .record(z.string(), z.string())
      .openapi({ description: 'Labels copied onto every incident the monitor opens.' }),
    graceSeconds: z.number().int().nullable().openapi({ description: 'Heartbeat only; null for other types.' }),
    enabled: z.boolean(),
    status: z.enum(MONITOR_STATUSES).openapi({
      description: '`pending` until the first check; `paused` while disabled; `maintenance` while a window covers it.',
    }),
    maintenanceUntil: dateTime.nullable().openapi({
      description:
        "End of the in-progress maintenance window covering the monitor's component (or the whole workspace), else null.",
    }),
    openEndedMaintenance: z
      .boolean()
      .openapi({ description: 'True only while a window without an end applies (reserved; currently always false).' }),
    lastCheckedAt: dateTime.nullable(),
    createdAt: dateTime,
    pingUrl: z.url().nullable().openapi({
      description:
        'Heartbeat only: the address the scheduled job pings (GET or POST). Returned on create and on read; null for other types.',
    }),
  })
  .openapi('Monitor');

// ---------------------------------------------------------------------------------------------------------------
// Response-time history
// ---------------------------------------------------------------------------------------------------------------

const phaseMs = z.number().int().nullable();
const responseTimeBucketSchema = z
  .object({
    bucketStart: dateTime,
    avgMs: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'Average over the checks that got a response; null for an empty bucket.' }),
    downCount: z.number().int().min(0),
    total: z.number().int().min(0).openapi({ description: 'All checks in the bucket; 0 for an empty bucket.' }),
    phases: z
      .object({ dnsMs: phaseMs, connectMs: phaseMs, tlsMs: phaseMs, waitingMs: phaseMs })
      .openapi({ description: 'Average phase timings. Solo plan or above; on the Free plan every value is null.' }),
  })
  .openapi('ResponseTimeBucket');

export const responseTimeHistorySchema = z
  .object({
    monitorId: uuid,
    period: z.enum(RESPONSE_TIME_PERIODS),
    region: z.string().openapi({ description: 'The region filtered to, or `all`.' }),
    buckets: z.array(responseTimeBucketSchema).openapi({
      description:
        'Fixed-width buckets, oldest first; every bucket of the window is present. The window ends at the current bucket.',
    }),
  })
  .openapi('ResponseTimeHistory');

// ---------------------------------------------------------------------------------------------------------------
// Maintenance windows
// ---------------------------------------------------------------------------------------------------------------

export const maintenanceRecordSchema = z
  .object({
    id: uuid,
    title: z.string().openapi({ description: 'Headline customers see.' }),
    body: z.string().openapi({ description: 'Public explanation.' }),
    status: z.enum(MAINTENANCE_STATUSES).openapi({
      description:
        'Derived from the clock: `scheduled` while now < startsAt, `in_progress` while startsAt <= now < endsAt, `completed` ' +
        'from endsAt on. Only `cancelled` is stored.',
    }),
    startsAt: dateTime,
    endsAt: dateTime,
    components: z
      .array(componentRefSchema)
      .openapi({ description: 'Components the window affects. Empty means the whole workspace.' }),
  })
  .openapi('MaintenanceWindow');

// ---------------------------------------------------------------------------------------------------------------
// Status pages
// ---------------------------------------------------------------------------------------------------------------

export const statusPageRecordSchema = z
  .object({
    id: uuid,
    name: z.string(),
    slug: z.string(),
    url: z.url().openapi({
      description:
        'The public page: `<PUBLIC_BASE_URL>/status/<slug>` (HTML, or JSON with `Accept: application/json`).',
    }),
    isPublic: z.boolean().openapi({ description: 'A page that is not public is not served (404).' }),
    passwordProtected: z.boolean(),
    createdAt: dateTime,
  })
  .openapi('StatusPage');

const layoutSectionSchema = z
  .object({
    id: uuid,
    name: z.string(),
    components: z.array(componentRefSchema).openapi({ description: 'In render order.' }),
  })
  .openapi('StatusPageSection');

export const statusPageLayoutSchema = z
  .object({
    statusPageId: uuid,
    sections: z.array(layoutSectionSchema).openapi({
      description:
        'In render order. Empty: the page has never been arranged and shows every workspace component, ungrouped.',
    }),
  })
  .openapi('StatusPageLayout');

// ---------------------------------------------------------------------------------------------------------------
// Incidents and escalation
// ---------------------------------------------------------------------------------------------------------------

export const incidentRecordSchema = z
  .object({
    id: uuid,
    title: z.string().openapi({ description: 'For a monitor incident: `<monitor name> is down`.' }),
    status: z.enum(INCIDENT_STATUSES),
    impact: z.enum(INCIDENT_IMPACTS).openapi({ description: 'Monitor incidents open as `major`.' }),
    source: z.enum(INCIDENT_SOURCES),
    startedAt: dateTime,
    resolvedAt: dateTime.nullable(),
    acknowledgedAt: dateTime.nullable(),
    monitorId: uuid.nullable().openapi({ description: 'The monitor that opened it; null for a manual incident.' }),
    metadata: z
      .record(z.string(), z.string())
      .openapi({ description: "The monitor's labels, copied when the incident opened." }),
  })
  .openapi('Incident');

const deliverySchema = z
  .object({
    channel: z.enum(DELIVERY_CHANNELS),
    target: z.string().openapi({
      description:
        'Never a secret. Email: the address. URL channels (webhook, slack, teams, discord, ntfy): only ' +
        '`scheme://host[:port]/…`, since the full URL is a credential. pagerduty and opsgenie: `routing key …abcd` / ' +
        '`API key …abcd` (the last four characters). telegram: `chat <chatId>`.',
    }),
    status: z
      .enum(DELIVERY_STATUSES)
      .openapi({ description: '`skipped`: silent policy, or a channel that is not configured.' }),
    sentAt: dateTime.nullable(),
    reason: z
      .string()
      .nullable()
      .openapi({
        description:
          'Beyond the spec: why the delivery failed or was skipped, as a code (`http_500`, `timeout`, `connection_refused`, ' +
          '`ssrf_blocked`, `smtp_550`, `worker_lost`, `silent policy`, `email not configured`, ...). Null unless `status` is ' +
          '`failed` or `skipped`.',
      }),
  })
  .openapi('EscalationDelivery');

const escalationStepSchema = z
  .object({
    stepId: uuid,
    position: z.number().int(),
    delayMinutes: z.number().int().openapi({
      description: "From the incident's start (or, in a repeat cycle, from the previous cycle's last step).",
    }),
    minImpact: z.enum(INCIDENT_IMPACTS),
    due: z.boolean().openapi({
      description:
        "The step's time has come in the current cycle and its `minImpact` is at most the incident's impact. Once the incident is " +
        'acknowledged or resolved, judged at that moment.',
    }),
    fired: z
      .boolean()
      .openapi({ description: 'The step has paged at least once (recorded its deliveries, whatever their status).' }),
    firedAt: dateTime.nullable().openapi({ description: 'When it last fired (the latest cycle in which it did).' }),
    deliveries: z.array(deliverySchema).openapi({ description: 'Every cycle, oldest first; targets in policy order.' }),
  })
  .openapi('EscalationStep');

const escalationPolicySchema = z
  .object({
    id: uuid,
    name: z.string(),
    repeatCount: z
      .number()
      .int()
      .min(0)
      .openapi({ description: 'How many more times the ladder repeats after its last step.' }),
    silent: z.boolean(),
    runbook: z.string(),
  })
  .openapi('EscalationPolicy');

export const escalationStateSchema = z
  .object({
    incidentId: uuid,
    status: z.enum(INCIDENT_STATUSES),
    acknowledgedAt: dateTime.nullable(),
    resolvedAt: dateTime.nullable(),
    escalating: z
      .boolean()
      .openapi({ description: 'Whether the ladder is still running (acknowledging or resolving stops it).' }),
    elapsedMinutes: z
      .number()
      .int()
      .min(0)
      .openapi({ description: 'Whole minutes since the incident started (until it was resolved).' }),
    policy: z.union([escalationPolicySchema, z.null()]).openapi({
      description:
        "The policy in effect, pinned when the incident opened: the monitor's own, else the workspace default, else null. " +
        'Assigning a policy later does not change the ladder of an incident already open.',
    }),
    steps: z
      .array(escalationStepSchema)
      .openapi({ description: 'One entry per ladder step; empty when no policy applies.' }),
    note: z.string().openapi({
      description:
        'What the ladder is doing, in one sentence: e.g. `Escalating: step 2 of 3 is due at <time>.`, `Acknowledged at <time>: ' +
        'the ladder has stopped.`, or that no policy applies.',
    }),
  })
  .openapi('EscalationState');
