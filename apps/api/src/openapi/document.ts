/**
 * The OpenAPI 3.1 description of the management API, generated from the Zod schemas the routes validate with
 * (packages/shared) and, for what has no validator yet, from ./records.ts. Served at GET /api/v1/openapi.json and
 * rendered at GET /docs.
 *
 * Every operation of management-api.md is here, implemented or not: the document is the interface, and
 * test/openapi.test.ts fails if one goes missing.
 */
import {
  OpenApiGeneratorV31,
  OpenAPIRegistry,
  zodToOpenAPIRegistry,
  type RouteConfig,
} from '@asteasolutions/zod-to-openapi';
import {
  createHeartbeatMonitorSchema,
  createHttpMonitorSchema,
  createMaintenanceSchema,
  createMonitorUnionSchema,
  createStatusPageSchema,
  createTcpMonitorSchema,
  headersSchema,
  jsonAssertionSchema,
  MAINTENANCE_LIMITS,
  metadataSchema,
  MONITOR_LIMITS,
  paginationQuerySchema,
  RESERVED_SLUGS,
  responseTimesQuerySchema,
  STATUS_PAGE_LIMITS,
  updateMaintenanceSchema,
  updateMonitorSchema,
} from '@statusvane/shared';
import {
  errorEnvelopeSchema,
  escalationStateSchema,
  incidentRecordSchema,
  maintenanceRecordSchema,
  monitorRecordSchema,
  paginationSchema,
  responseTimeHistorySchema,
  statusPageLayoutSchema,
  statusPageRecordSchema,
} from './records.js';
import { describeSchema, nameSchema, z } from './zod.js';

export const OPENAPI_PATH = '/api/v1/openapi.json';
export const WORKSPACE_HEADER = 'X-Statusvane-Workspace';

type Method = 'get' | 'post' | 'patch' | 'delete';
type Tag = 'Monitors' | 'Status pages' | 'Maintenance' | 'Incidents';

const TAGS: Array<{ name: Tag; description: string }> = [
  {
    name: 'Monitors',
    description:
      'Uptime checks of kind `http`, `tcp` or `heartbeat`. Creating a monitor also creates its public component; the first ' +
      'check runs on the next poll cycle, within about 2 minutes.',
  },
  {
    name: 'Status pages',
    description: 'Public pages showing the state of the workspace components, incidents and maintenance.',
  },
  {
    name: 'Maintenance',
    description:
      "Planned-work notices published on the workspace's status pages. During a window that covers a monitor, checks still run " +
      'but open no incident and page nobody. A deploy pipeline typically opens a window when a release starts and sends ' +
      '`status: complete` when it finishes.',
  },
  {
    name: 'Incidents',
    description:
      'Open and recently resolved incidents, their escalation ladders, and the moves a responder makes: acknowledge, resolve, delete.',
  },
];

const ROLE_NOTE = {
  read: 'Any role (viewer and above).',
  monitorsWrite: 'Role: member, admin or owner (a viewer gets 403).',
  respond: 'Role: member, admin or owner (a viewer gets 403).',
  manage: 'Role: admin or owner, the roles that can manage status pages (others get 403).',
  delete: 'Role: admin or owner (others get 403).',
} as const;

// ---------------------------------------------------------------------------------------------------------------
// Shared components: responses, headers, parameters
// ---------------------------------------------------------------------------------------------------------------

const ref = (kind: 'schemas' | 'responses' | 'headers' | 'parameters', name: string) => ({
  $ref: `#/components/${kind}/${name}`,
});

type HeaderComponent = {
  description: string;
  schema: { type: 'string' | 'integer'; maxLength?: number; minimum?: number; enum?: string[] };
};

const HEADERS: Record<string, HeaderComponent> = {
  RequestId: {
    description:
      'Identifies the request in the logs. Echoed when the client sent a safe value (up to 128 characters of `A-Za-z0-9._:-`).',
    schema: { type: 'string', maxLength: 128 },
  },
  RateLimitLimit: {
    description: 'Requests allowed per minute for this token.',
    schema: { type: 'integer', minimum: 0 },
  },
  RateLimitRemaining: { description: 'Requests left in the current window.', schema: { type: 'integer', minimum: 0 } },
  RateLimitReset: { description: 'Seconds until the window resets.', schema: { type: 'integer', minimum: 0 } },
  RetryAfter: { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 0 } },
  WwwAuthenticate: { description: 'Always `Bearer`.', schema: { type: 'string', enum: ['Bearer'] } },
  IdempotentReplayed: {
    description:
      'Present (`true`) when this is the stored response of an earlier request with the same `Idempotency-Key`.',
    schema: { type: 'string', enum: ['true'] },
  },
};

const requestIdHeader = { 'X-Request-Id': ref('headers', 'RequestId') };
const rateLimitHeaders = {
  'RateLimit-Limit': ref('headers', 'RateLimitLimit'),
  'RateLimit-Remaining': ref('headers', 'RateLimitRemaining'),
  'RateLimit-Reset': ref('headers', 'RateLimitReset'),
};
const successHeaders = { ...requestIdHeader, ...rateLimitHeaders };

const errorExample = (code: string, message: string, details?: Record<string, unknown>) => ({
  error: { code, message, ...(details ? { details } : {}) },
});

const ERROR_RESPONSES = {
  BadRequest: {
    description:
      '`invalid_request`: malformed JSON, a wrong content type, unknown fields, wrong types or out-of-range values (`details.issues` ' +
      'names each offending field); or a personal token that belongs to several workspaces sent without `X-Statusvane-Workspace` ' +
      '(`details.workspaces` lists the choices).',
    headers: successHeaders,
    example: errorExample('invalid_request', 'Invalid request: intervalSeconds', {
      issues: [{ path: 'intervalSeconds', message: 'Too small: expected number to be >=60' }],
    }),
  },
  Unauthorized: {
    description: '`unauthorized`: the bearer token is missing, malformed, unknown, revoked or expired.',
    headers: { ...requestIdHeader, 'WWW-Authenticate': ref('headers', 'WwwAuthenticate') },
    example: errorExample('unauthorized', 'The token is invalid, expired or revoked'),
  },
  Forbidden: {
    description:
      "`forbidden`: the token's role may not perform the operation, or `X-Statusvane-Workspace` names a workspace the token " +
      'cannot act in.',
    headers: requestIdHeader,
    example: errorExample('forbidden', 'The viewer role may not perform this operation'),
  },
  NotFound: {
    description:
      '`not_found`: no such record in this workspace (an id that is not a uuid, or that belongs to another workspace, is also 404).',
    headers: successHeaders,
    example: errorExample('not_found', 'monitor 1f0c7a52-3d3c-4c55-9d87-5d2f2b0a8e11 was not found'),
  },
  PayloadTooLarge: {
    description: '`invalid_request`: the body is larger than 256 KiB.',
    headers: successHeaders,
    example: errorExample('invalid_request', 'The request body is larger than 256 KiB'),
  },
  TooManyRequests: {
    description:
      '`rate_limited`: the per-token request rate is spent (600 per minute by default). Wait `Retry-After` seconds.',
    headers: { ...successHeaders, 'Retry-After': ref('headers', 'RetryAfter') },
    example: errorExample('rate_limited', 'Rate limit of 600 requests per minute exceeded'),
  },
  ServiceUnavailable: {
    description:
      '`internal`: a dependency (PostgreSQL or Redis) is unavailable. Nothing was changed; retry after `Retry-After` seconds.',
    headers: { ...requestIdHeader, 'Retry-After': ref('headers', 'RetryAfter') },
    example: errorExample('internal', 'The service is temporarily unavailable (redis); retry shortly'),
  },
} as const;
type ErrorResponseName = keyof typeof ERROR_RESPONSES;

/** A 409 differs per operation, so it is written inline with the operation's own conditions. */
function conflict(description: string, example: string) {
  return {
    description: `\`conflict\`: ${description}`,
    headers: successHeaders,
    content: { 'application/json': { schema: ref('schemas', 'Error'), example: errorExample('conflict', example) } },
  };
}

const IDEMPOTENCY_DESCRIPTION =
  'Optional safe-retry key: a unique value per logical request (a UUID is ideal), 1 to 255 characters. The key is scoped to the ' +
  "workspace and the token's principal and kept for 24 hours with the first successful response. A retry with the same key and " +
  'the same body replays that response (same status and body) with `Idempotent-Replayed: true`, and the action is not performed ' +
  'twice. The same key with a different body: 400. A retry while the first request is still in flight: 409 (retry shortly). ' +
  'Requests that fail (validation, permissions, conflicts) are not stored, so the key can be reused after fixing them.';

// ---------------------------------------------------------------------------------------------------------------
// Operations
// ---------------------------------------------------------------------------------------------------------------

interface Operation {
  method: Method;
  path: string;
  operationId: string;
  tag: Tag;
  summary: string;
  description: string;
  body?: { schema: z.ZodType; description?: string; examples?: Record<string, { summary: string; value: unknown }> };
  query?: z.ZodObject;
  /** Has an `{id}` path parameter: adds 404. */
  id?: boolean;
  idempotent?: boolean;
  success: { status: 200 | 201 | 204; description: string; schema?: z.ZodType };
  conflict?: { description: string; example: string };
}

const data = (record: z.ZodType) => z.object({ data: record });
const list = (record: z.ZodType) => z.object({ data: z.array(record), pagination: paginationSchema });

const OPERATIONS: Operation[] = [
  // Maintenance ---------------------------------------------------------------------------------------------------
  {
    method: 'post',
    path: '/maintenance',
    operationId: 'createMaintenanceWindow',
    tag: 'Maintenance',
    summary: 'Create a maintenance window',
    description:
      "Opens a maintenance window and publishes its notice on the workspace's status pages. `endsAt` must be after `startsAt`; " +
      'a missing title or an end not after the start is 400, as are unknown component ids. ' +
      ROLE_NOTE.manage,
    body: {
      schema: createMaintenanceSchema,
      examples: {
        deploy: {
          summary: 'A release window over the whole workspace',
          value: {
            title: 'Release 4.2',
            body: 'We are deploying a new version; short interruptions are possible.',
            startsAt: '2026-03-01T22:00:00Z',
            endsAt: '2026-03-01T23:00:00Z',
          },
        },
      },
    },
    success: { status: 201, description: 'The created window.', schema: data(maintenanceRecordSchema) },
  },
  {
    method: 'get',
    path: '/maintenance/{id}',
    operationId: 'getMaintenanceWindow',
    tag: 'Maintenance',
    summary: 'Get a maintenance window',
    description: 'Title, public message, time range, current phase and affected components. ' + ROLE_NOTE.read,
    id: true,
    success: { status: 200, description: 'The window.', schema: data(maintenanceRecordSchema) },
  },
  {
    method: 'patch',
    path: '/maintenance/{id}',
    operationId: 'updateMaintenanceWindow',
    tag: 'Maintenance',
    summary: 'Update, start, complete or cancel a maintenance window',
    description:
      'Only the provided fields change; extending a running window is done by sending `endsAt` alone, and the original message ' +
      'survives. `status` is an action: `start` (from `scheduled`) begins the window now, `complete` (from `in_progress`) ends it ' +
      'now, `cancel` (from `scheduled` or `in_progress`) calls it off and keeps it on the public record. Repeating the action the ' +
      'window is already in is a no-op 200. A PATCH may not leave `endsAt` at or before `startsAt` (400). ' +
      ROLE_NOTE.manage,
    id: true,
    body: {
      schema: updateMaintenanceSchema,
      examples: {
        extend: { summary: 'Extend a running window', value: { endsAt: '2026-03-01T23:30:00+00:00' } },
        complete: { summary: 'The release is done', value: { status: 'complete' } },
      },
    },
    success: { status: 200, description: 'The updated window.', schema: data(maintenanceRecordSchema) },
    conflict: {
      description:
        'the action is not allowed from the current state (out of `completed` or `cancelled`, or `complete` on a `scheduled` window).',
      example: 'A completed maintenance window cannot be started',
    },
  },
  // Monitors ------------------------------------------------------------------------------------------------------
  {
    method: 'post',
    path: '/monitors',
    operationId: 'createMonitor',
    tag: 'Monitors',
    summary: 'Create a monitor',
    description:
      'Creates the monitor and its public component. The first check runs within seconds (the interface promises about 2 minutes). ' +
      'The body is discriminated on `type`; **when `type` is omitted the body is read as an `http` monitor** (older clients keep ' +
      'working), which this schema cannot express: it lists `type` as required. For `heartbeat` the response includes `pingUrl`. ' +
      'An http target must be an absolute http(s) URL without credentials, and a target that is or resolves to a private, ' +
      'loopback, link-local or otherwise non-public address is refused with 400 (server-side request forgery guard); a host name ' +
      'that does not resolve, or not within 2.5 s, is accepted and checked again at every connection. `enabled` is not ' +
      'accepted: a monitor starts enabled. An empty `keyword` or `keywordAbsent` means none (stored as null). A 400 lists every ' +
      'offending field in `error.details.issues`, whichever check found it (schema, fields of the type, target, rules between ' +
      'fields, request forgery guard). With `Idempotency-Key` the stored answer commits in the same transaction as the monitor. ' +
      ROLE_NOTE.monitorsWrite,
    body: {
      schema: createMonitorUnionSchema,
      examples: {
        http: {
          summary: 'An http monitor',
          value: {
            type: 'http',
            name: 'Homepage',
            target: 'https://www.example.com/health',
            intervalSeconds: 60,
            expectedStatusCodes: [200],
            keyword: 'ok',
          },
        },
        tcp: { summary: 'A tcp monitor', value: { type: 'tcp', name: 'Database', target: 'db.example.com:5432' } },
        heartbeat: {
          summary: 'A heartbeat for a nightly job',
          value: { type: 'heartbeat', name: 'Nightly backup', intervalSeconds: 86400, graceSeconds: 900 },
        },
      },
    },
    idempotent: true,
    success: { status: 201, description: 'The created monitor.', schema: data(monitorRecordSchema) },
    conflict: {
      description: 'a request with the same `Idempotency-Key` is still in flight.',
      example: 'A request with this Idempotency-Key is still in progress; retry shortly',
    },
  },
  {
    method: 'get',
    path: '/monitors',
    operationId: 'listMonitors',
    tag: 'Monitors',
    summary: 'List monitors',
    description: "A page of the workspace's monitors, oldest first. " + ROLE_NOTE.read,
    query: paginationQuerySchema,
    success: { status: 200, description: 'A page of monitors.', schema: list(monitorRecordSchema) },
  },
  {
    method: 'get',
    path: '/monitors/{id}',
    operationId: 'getMonitor',
    tag: 'Monitors',
    summary: 'Get a monitor',
    description: 'The monitor record, including `pingUrl` for a heartbeat monitor. ' + ROLE_NOTE.read,
    id: true,
    success: { status: 200, description: 'The monitor.', schema: data(monitorRecordSchema) },
  },
  {
    method: 'patch',
    path: '/monitors/{id}',
    operationId: 'updateMonitor',
    tag: 'Monitors',
    summary: 'Update, pause or resume a monitor',
    description:
      'Every field is optional and only the provided ones change. `enabled: false` pauses the monitor, `enabled: true` resumes it. ' +
      "`type` and `metadata` cannot be changed (400), and a field that does not apply to the monitor's type is 400. `headers` " +
      'and `body` replace the stored ones whole (`headers: {}` and `body: null` clear them); nullable settings are cleared ' +
      'with null, and an empty `keyword` or `keywordAbsent` clears it too. A 400 lists every offending field. The rules between ' +
      'fields hold for the monitor as stored after the write: a PATCH that a concurrent one made invalid (say, a method GET ' +
      'meeting a body) is refused with 400. ' +
      ROLE_NOTE.monitorsWrite,
    id: true,
    body: {
      // `type` and `metadata` are in the validator only to answer them with a precise 400: not part of the interface.
      // `jsonAssertion` is restated as the equivalent union with null, for the reason given in records.ts.
      schema: nameSchema(
        updateMonitorSchema.omit({ type: true, metadata: true, jsonAssertion: true }).extend({
          jsonAssertion: z
            .union([jsonAssertionSchema, z.null()])
            .optional()
            .openapi({ description: 'Replaces the assertion; null removes it.' }),
        }),
        'UpdateMonitorInput',
        "Every field optional; only the provided ones change. Which fields apply depends on the monitor's type, as on create.",
      ),
      examples: {
        pause: { summary: 'Pause the monitor', value: { enabled: false } },
        tune: {
          summary: 'Check less often, fail slower responses',
          value: { intervalSeconds: 300, latencyThresholdMs: 5000 },
        },
      },
    },
    success: { status: 200, description: 'The updated monitor.', schema: data(monitorRecordSchema) },
  },
  {
    method: 'get',
    path: '/monitors/{id}/response-times',
    operationId: 'getMonitorResponseTimes',
    tag: 'Monitors',
    summary: 'Get response-time history',
    description:
      'Fixed-width buckets over the chosen period, every bucket present, the window ending at the current bucket. `avgMs` averages ' +
      'the checks that got a response; an empty bucket has `total` 0, `downCount` 0 and `avgMs` null. The phase breakdown ' +
      'requires the Solo plan or above: on the Free plan every phase value is null and the rest is unchanged. ' +
      ROLE_NOTE.read,
    id: true,
    query: responseTimesQuerySchema,
    success: { status: 200, description: 'The history.', schema: data(responseTimeHistorySchema) },
  },
  // Status pages --------------------------------------------------------------------------------------------------
  {
    method: 'post',
    path: '/status-pages',
    operationId: 'createStatusPage',
    tag: 'Status pages',
    summary: 'Create a status page',
    description:
      '`vanityUrl` is normalised to the slug (see the body schema). A reserved slug (' +
      [...RESERVED_SLUGS].map((slug) => `\`${slug}\``).join(', ') +
      ') or one already taken by any workspace is 409. ' +
      ROLE_NOTE.manage,
    body: {
      schema: createStatusPageSchema,
      examples: {
        page: {
          summary: 'A public page',
          value: { vanityUrl: 'https://status.acme.com', name: 'Acme status', isPublic: true },
        },
      },
    },
    idempotent: true,
    success: { status: 201, description: 'The created page.', schema: data(statusPageRecordSchema) },
    conflict: {
      description:
        'the slug is reserved or already taken, or a request with the same `Idempotency-Key` is still in flight.',
      example: 'The slug acme-status is already taken',
    },
  },
  {
    method: 'get',
    path: '/status-pages/{id}/layout',
    operationId: 'getStatusPageLayout',
    tag: 'Status pages',
    summary: 'Get a status page layout',
    description:
      "The page's sections in render order, each with its components in render order. An empty `sections` array means the page " +
      'has never been arranged and shows every workspace component, ungrouped. ' +
      ROLE_NOTE.read,
    id: true,
    success: { status: 200, description: 'The layout.', schema: data(statusPageLayoutSchema) },
  },
  // Incidents -----------------------------------------------------------------------------------------------------
  {
    method: 'get',
    path: '/incidents',
    operationId: 'listIncidents',
    tag: 'Incidents',
    summary: 'List incidents',
    description:
      'Open and acknowledged incidents plus those resolved in the last 7 days, newest first. ' + ROLE_NOTE.read,
    query: paginationQuerySchema,
    success: { status: 200, description: 'A page of incidents.', schema: list(incidentRecordSchema) },
  },
  {
    method: 'get',
    path: '/incidents/{id}/escalation',
    operationId: 'getIncidentEscalation',
    tag: 'Incidents',
    summary: 'Get the escalation state of an incident',
    description:
      "The policy in effect (pinned when the incident opened: the monitor's own, else the workspace default), each ladder " +
      'step, which steps have paged and through which delivery (with the reason of a failed or skipped one), and whether ' +
      'the incident is acknowledged. ' +
      ROLE_NOTE.read,
    id: true,
    success: { status: 200, description: 'The escalation state.', schema: data(escalationStateSchema) },
  },
  {
    method: 'post',
    path: '/incidents/{id}/acknowledge',
    operationId: 'acknowledgeIncident',
    tag: 'Incidents',
    summary: 'Acknowledge an incident',
    description:
      'Marks the incident acknowledged and stops its escalation ladder: no further step pages. Acknowledging an acknowledged ' +
      'incident is a no-op 200. No request body. ' +
      ROLE_NOTE.respond,
    id: true,
    success: { status: 200, description: 'The acknowledged incident.', schema: data(incidentRecordSchema) },
    conflict: {
      description: 'the incident is already resolved.',
      example: 'A resolved incident cannot be acknowledged',
    },
  },
  {
    method: 'post',
    path: '/incidents/{id}/resolve',
    operationId: 'resolveIncident',
    tag: 'Incidents',
    summary: 'Resolve an incident',
    description:
      'Marks the incident resolved and stops its escalation ladder. For a monitor incident, a new incident needs `openThreshold` ' +
      'fresh failures. Resolving a resolved incident is a no-op 200. No request body. ' +
      ROLE_NOTE.respond,
    id: true,
    success: { status: 200, description: 'The resolved incident.', schema: data(incidentRecordSchema) },
  },
  {
    method: 'delete',
    path: '/incidents/{id}',
    operationId: 'deleteIncident',
    tag: 'Incidents',
    summary: 'Delete an incident',
    description:
      "Permanently deletes one of the workspace's own incidents. For a monitor incident the monitor's flap state is reset: a new " +
      'incident needs `openThreshold` fresh failures. ' +
      ROLE_NOTE.delete,
    id: true,
    success: { status: 204, description: 'Deleted; no body.' },
  },
];

// ---------------------------------------------------------------------------------------------------------------
// Building
// ---------------------------------------------------------------------------------------------------------------

/**
 * Names the schemas of packages/shared in place (see nameSchema): the union's options must carry a refId for the
 * generator to emit a `discriminator` mapping, and they were created before `.openapi()` existed.
 */
function nameSharedSchemas(): void {
  const name = nameSchema;
  const L = MONITOR_LIMITS;
  name(
    createHttpMonitorSchema,
    'CreateHttpMonitorInput',
    'An http(s) check. Defaults: `method` GET, `intervalSeconds` 60, `timeoutMs` 10000, `openThreshold` 2, `resolveThreshold` 2, ' +
      '`environment` "production", `contentType` application/json, `expectedStatusCodes` empty (any 2xx or 3xx). A check fails on ' +
      'a connection or DNS error, a timeout, an unexpected status (after up to 5 redirects), a missing `keyword`, a present ' +
      '`keywordAbsent`, a failing `jsonAssertion`, or a response slower than `latencyThresholdMs`; one slower than ' +
      '`degradedAfterMs` passes as degraded.',
  );
  name(
    createTcpMonitorSchema,
    'CreateTcpMonitorInput',
    'A TCP connect check. `target` is `host:port` (port 1-65535; IPv6 as `[addr]:port`).',
  );
  name(
    createHeartbeatMonitorSchema,
    'CreateHeartbeatMonitorInput',
    'A heartbeat: the scheduled job pings `pingUrl` (returned in the record) every `intervalSeconds`; a ping later than that plus ' +
      '`graceSeconds` (default 60) counts as a failed check. No target.',
  );
  name(
    jsonAssertionSchema,
    'JsonAssertion',
    'Navigates `path` (dot or bracket notation, leading `$.` optional) in a JSON response and compares with `operator`. `value` ' +
      'is required except for `exists` and `notExists` (where it is refused); `gt`, `gte`, `lt`, `lte` compare numbers. A path ' +
      'that does not resolve fails the check (except `notExists`); a non-JSON body fails the check.',
  );
  name(
    headersSchema,
    'MonitorRequestHeaders',
    `Custom request headers, stored encrypted and never returned (the record shows \`headerNames\`). At most ${L.headersMax}; ` +
      'names are RFC 9110 tokens, case-insensitively unique; `Host`, `Content-Length`, `Transfer-Encoding`, `Connection` and other ' +
      `hop-by-hop headers cannot be set, nor \`__proto__\`. Values up to ${L.headerValueMax} characters, no CR, LF or NUL. Sent ` +
      'only to the original host: dropped on a cross-host redirect.',
  );
  name(
    metadataSchema,
    'MonitorMetadata',
    `Labels copied onto every incident the monitor opens. At most ${L.metadataEntriesMax} entries; keys 1 to ${L.metadataKeyMax} ` +
      `characters (not \`__proto__\`), values up to ${L.metadataValueMax}. Set on create only.`,
  );
  const M = MAINTENANCE_LIMITS;
  name(
    createMaintenanceSchema,
    'CreateMaintenanceInput',
    `\`title\`: 1 to ${M.titleMax} characters (trimmed). \`body\`: the public explanation, up to ${M.bodyMax} characters, empty when ` +
      'omitted. `startsAt` and `endsAt`: ISO 8601 with an offset (`Z` or `+02:00`), between 0001-01-01T00:00:00Z and ' +
      '9999-12-31T23:59:59.999Z once converted to UTC; `endsAt` must be after `startsAt` (otherwise ' +
      `400). \`componentIds\`: up to ${M.componentIdsMax} of the workspace's components (uuids in any case); omitted or empty means the whole ` +
      'workspace; an unknown or foreign id is 400.',
  );
  name(
    updateMaintenanceSchema,
    'UpdateMaintenanceInput',
    'Every field optional; only the provided ones change (same rules as on create). `endsAt` sent alone extends or shortens the ' +
      'window and the rest survives; times sent may not leave `endsAt` at or before `startsAt` (400), though `complete` at the ' +
      'millisecond the window started leaves a zero-length completed window. `componentIds` ' +
      'replaces the affected components. `status` is an action, not a state: `start` begins the window now (from `scheduled`), ' +
      '`complete` ends it now (from `in_progress`), `cancel` calls it off (from `scheduled` or `in_progress`) and keeps it on the ' +
      'public record.',
  );
  const S = STATUS_PAGE_LIMITS;
  name(
    createStatusPageSchema,
    'CreateStatusPageInput',
    `\`vanityUrl\` (up to ${S.vanityUrlMax} characters) is normalised to the slug: lower-cased; a leading scheme (\`https://\`, ` +
      '`ftp://`, any `name://`) and `www.` stripped; accents folded; letters, digits and hyphens kept; every run of other characters becomes one hyphen; ' +
      `hyphens trimmed; at most ${S.slugMax} characters. Shorter than ${S.slugMin} after that: 400. A reserved or already-taken ` +
      `slug (slugs are unique across all workspaces): 409. \`name\`: 1 to ${S.nameMax} characters. \`isPublic\`: a page that ` +
      'is not public is not served (404).',
  );
  describeSchema(
    responseTimesQuerySchema.shape.period,
    'Window and bucket width: `hour` 60 x 1 min, `day` 24 x 1 h, `week` 28 x 6 h, `month` 30 x 1 day.',
  );
  describeSchema(
    responseTimesQuerySchema.shape.region,
    'Filters to one probe region; omit it (or give `all`, which no region may be named) for all regions.',
  );
  describeSchema(paginationQuerySchema.shape.page, 'The page to return, 1-indexed.');
  describeSchema(paginationQuerySchema.shape.perPage, 'Items per page, 1 to 250.');
  name(
    createMonitorUnionSchema,
    'CreateMonitorInput',
    'Discriminated on `type`. **`type` may be omitted: the body is then read as an `http` monitor** (the validator fills it ' +
      'in before this union applies, which the schema cannot express). Unknown fields, and fields of another type, are 400.',
  );
}

function buildRegistry(): OpenAPIRegistry {
  nameSharedSchemas();
  const registry = new OpenAPIRegistry();

  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description:
      'Every request carries `Authorization: Bearer <token>`. Three token kinds are accepted, told apart by their prefix:\n\n' +
      '| Kind | Prefix | Behaviour |\n|---|---|---|\n' +
      '| Organisation token | `sv_` | Bound to one workspace with a fixed role. Created in the dashboard under Developers, API tokens. |\n' +
      "| Personal token | `svu_` | Acts as the user, with the user's own live role in the workspace named by `X-Statusvane-Workspace`. |\n" +
      '| OAuth access token | `mcp_at_` | Issued to a connected app; limited to the workspaces the user granted. Expires (one hour by default). |\n\n' +
      'A missing, malformed, unknown, revoked or expired token is 401. Membership and grants are re-read on every request, so ' +
      'leaving a workspace or revoking a grant takes effect at once.',
  });

  for (const [name, header] of Object.entries(HEADERS)) registry.registerComponent('headers', name, header);
  for (const [name, r] of Object.entries(ERROR_RESPONSES)) {
    registry.registerComponent('responses', name, {
      description: r.description,
      headers: r.headers,
      content: { 'application/json': { schema: ref('schemas', 'Error'), example: r.example } },
    });
  }

  registry.registerComponent('parameters', 'WorkspaceHeader', {
    name: WORKSPACE_HEADER,
    in: 'header',
    required: false,
    description:
      'The workspace to act in, by slug or id. For a personal token: required when the user belongs to more than one ' +
      'workspace (otherwise 400 with `error.details.workspaces`); not being a member is 403. For an OAuth token: defaults to ' +
      "the connection's primary workspace; a workspace not granted is 403. For an organisation token: optional, and naming " +
      'another workspace than its own is 403.',
    schema: { type: 'string', minLength: 1, maxLength: 100 },
    example: 'acme',
  });
  registry.registerComponent('parameters', 'IdempotencyKey', {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description: IDEMPOTENCY_DESCRIPTION,
    schema: { type: 'string', minLength: 1, maxLength: 255 },
    example: '5f1d8e5e-3a9b-4c1e-9e57-2a4d1b0e6c3f',
  });
  registry.registerComponent('parameters', 'Id', {
    name: 'id',
    in: 'path',
    required: true,
    description: 'The record id, a uuid. An id that is not a uuid, or that belongs to another workspace, is 404.',
    schema: { type: 'string', format: 'uuid' },
  });

  // The records under their own names, so clients get one type each (the inputs are named by nameSharedSchemas).
  for (const schema of [
    errorEnvelopeSchema,
    paginationSchema,
    monitorRecordSchema,
    maintenanceRecordSchema,
    statusPageRecordSchema,
    statusPageLayoutSchema,
    incidentRecordSchema,
    escalationStateSchema,
    responseTimeHistorySchema,
  ]) {
    registry.register(refIdOf(schema), schema);
  }

  for (const op of OPERATIONS) registry.registerPath(routeOf(op));
  return registry;
}

function refIdOf(schema: z.ZodType): string {
  const refId = zodToOpenAPIRegistry.get(schema)?._internal?.refId;
  if (!refId) throw new Error('an OpenAPI record schema has no name');
  return refId;
}

function routeOf(op: Operation): RouteConfig {
  const errors = (name: ErrorResponseName) => ref('responses', name);
  const responses: RouteConfig['responses'] = {};
  const successHeadersFor = op.idempotent
    ? { ...successHeaders, 'Idempotent-Replayed': ref('headers', 'IdempotentReplayed') }
    : successHeaders;
  responses[String(op.success.status)] = {
    description: op.success.description,
    headers: successHeadersFor,
    ...(op.success.schema ? { content: { 'application/json': { schema: op.success.schema } } } : {}),
  };
  responses['400'] = errors('BadRequest');
  responses['401'] = errors('Unauthorized');
  responses['403'] = errors('Forbidden');
  if (op.id) responses['404'] = errors('NotFound');
  if (op.conflict) responses['409'] = conflict(op.conflict.description, op.conflict.example);
  if (op.body) responses['413'] = errors('PayloadTooLarge');
  responses['429'] = errors('TooManyRequests');
  responses['503'] = errors('ServiceUnavailable');

  const headerParams = [
    ref('parameters', 'WorkspaceHeader'),
    ...(op.idempotent ? [ref('parameters', 'IdempotencyKey')] : []),
  ];
  return {
    method: op.method,
    path: op.path,
    operationId: op.operationId,
    summary: op.summary,
    description: op.description,
    tags: [op.tag],
    parameters: [...(op.id ? [ref('parameters', 'Id')] : []), ...headerParams],
    request: {
      ...(op.query ? { query: op.query } : {}),
      ...(op.body
        ? {
            body: {
              required: true,
              ...(op.body.description ? { description: op.body.description } : {}),
              content: {
                'application/json': {
                  schema: op.body.schema,
                  ...(op.body.examples ? { examples: op.body.examples } : {}),
                },
              },
            },
          }
        : {}),
    },
    responses,
  };
}

let memo: object | undefined;

/** The OpenAPI 3.1 document, built once per process (it is a pure function of the schemas). */
export function buildOpenApiDocument(): object {
  memo ??= new OpenApiGeneratorV31(buildRegistry().definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Statusvane Management API',
      version: '1.0.0',
      description: INFO_DESCRIPTION,
    },
    servers: [
      {
        url: '/api/v1',
        description: 'This deployment: paths are relative to the `/api/v1` base, beside this document.',
      },
    ],
    security: [{ bearerAuth: [] }],
    tags: TAGS,
  });
  return memo;
}

const INFO_DESCRIPTION = [
  'Provision and read a Statusvane workspace programmatically: monitors, status pages, incidents and maintenance windows.',
  '',
  'The interface version is carried in the base path `/api/v1`; this description is version 1.0.0. All bodies are JSON ' +
    '(`Content-Type: application/json`).',
  '',
  '**Envelopes.** A single record is returned as `{ "data": <record> }`, a list as `{ "data": [...], "pagination": {...} }`. ' +
    'An error is `{ "error": { "code", "message", "details"? } }` with one of the codes `invalid_request` (400), `unauthorized` ' +
    '(401), `forbidden` (403), `not_found` (404), `conflict` (409), `rate_limited` (429), `internal` (500, or 503 when a ' +
    'dependency is unavailable).',
  '',
  '**Success codes.** POST that creates: 201. GET, PATCH and the incident actions: 200. DELETE: 204 with no body.',
  '',
  '**Lists.** `page` is 1-indexed (default 1), `perPage` 1 to 250 (default 25). Unknown query parameters are 400.',
  '',
  '**Authentication.** A bearer token (`sv_`, `svu_` or `mcp_at_`) bound to a workspace; personal and OAuth tokens pick the ' +
    'workspace with the `X-Statusvane-Workspace` header. Roles: `owner`, `admin`, `member`, `viewer`; each operation names the ' +
    'roles it needs.',
  '',
  '**Rate limits.** Per token, 600 requests per minute by default. Responses carry `RateLimit-Limit`, `RateLimit-Remaining` and ' +
    '`RateLimit-Reset`; a spent limit is 429 with `Retry-After`.',
  '',
  '**Safe retries.** POST /monitors and POST /status-pages accept an `Idempotency-Key` header.',
  '',
  '**Tracing.** Every response carries `X-Request-Id` (a safe one sent by the client is echoed).',
].join('\n');
