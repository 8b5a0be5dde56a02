/**
 * The OpenAPI 3.1 description of the management API, generated from the route declarations (routes/api-routes.ts:
 * each operation's request schemas, record schemas and roles, declared once) and the shared components of
 * ./openapi-operation.ts. Served at GET /api/v1/openapi.json and rendered at GET /docs (./docs.router.ts). It stands
 * above everything it describes: nothing below routes/ imports it.
 */
import { OpenApiGeneratorV31, OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import {
  createHeartbeatMonitorSchema,
  createHttpMonitorSchema,
  createMonitorSchema,
  createMaintenanceSchema,
  createStatusPageSchema,
  escalationTargetSchema,
  createDnsMonitorSchema,
  createApiMonitorSchema,
  createDomainMonitorSchema,
  createTcpMonitorSchema,
  headersSchema,
  jsonAssertionSchema,
  MAINTENANCE_LIMITS,
  metadataSchema,
  MONITOR_LIMITS,
  paginationQuerySchema,
  responseTimesQuerySchema,
  STATUS_PAGE_LIMITS,
  updateMaintenanceSchema,
  updateMonitorSchema,
} from '@statusvane/shared';
import { errorEnvelopeSchema } from '../../schemas/envelopes.js';
import { describeSchema, nameSchema } from '../../schemas/zod.js';
import { API_ROUTES } from '../api-routes.js';
import type { Tag } from '../define-route.js';
import {
  ERROR_RESPONSES,
  HEADERS,
  headOperationOf,
  headResponseName,
  IDEMPOTENCY_DESCRIPTION,
  IF_MATCH_DESCRIPTION,
  IF_NONE_MATCH_DESCRIPTION,
  NOT_MODIFIED,
  operationOf,
  ref,
} from './openapi-operation.js';
import { registerWebhooks } from './openapi-webhooks.js';

export const OPENAPI_PATH = '/api/v1/openapi.json';
export const WORKSPACE_HEADER = 'X-Statusvane-Workspace';

const TAGS: Array<{ name: Tag; description: string }> = [
  {
    name: 'Monitors',
    description:
      'Uptime checks of kind `http`, `tcp`, `dns`, `api` (several HTTP steps), `domain` (registration expiry) or `heartbeat`. Creating a monitor also creates its public component and queues ' +
      'its first check at once: it runs within seconds, then every `intervalSeconds`.',
  },
  {
    name: 'Components',
    description:
      'What status pages show: one public component per monitor, created and deleted with it, with its own public name ' +
      'and description.',
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
  {
    name: 'Escalation policies',
    description:
      'Who is paged, when and how: ordered steps of targets (webhook, Slack, email, Teams, Discord, ntfy, PagerDuty, Opsgenie, ' +
      "Telegram). A monitor pages with its own policy, else the workspace's default; an incident keeps the ladder it opened with.",
  },
  {
    name: 'On-call',
    description:
      'Schedules of layered rotations in an IANA timezone, overrides and a fallback user; who is on call at an instant, the ' +
      'resolved shifts, iCalendar feeds, and your own contact methods (`/me/...`), through which `schedule` and `user` ' +
      'escalation targets page.',
  },
  {
    name: 'Access',
    description:
      "The workspace's API tokens and members. Tokens are shown once, when created; only an owner grants or removes the owner " +
      'role, and the last owner stays.',
  },
  {
    name: 'Configuration',
    description:
      'Monitoring as code: a workspace document (JSON or YAML) of monitors, escalation policies and status pages, each ' +
      'named by a `ref`. Plan shows what applying it would change; apply makes those changes in one transaction; the ' +
      'export is a document of the managed resources. Resources without a `ref` are never touched.',
  },
  {
    name: 'Audit events',
    description:
      'Who changed what, when: every successful write through the API or the admin CLI, with the fields it changed ' +
      '(secrets redacted). Every mutable record also carries a `version`, answered as `ETag`; PATCH and DELETE take it ' +
      'back in `If-Match` and answer 412 `precondition_failed` when the record changed since.',
  },
  {
    name: 'Events',
    description:
      'The event log (CloudEvents 1.0, kept 30 days, read with a cursor) and the webhooks that receive it, signed with ' +
      '`Statusvane-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, retried for 24 hours and replayable.',
  },
  {
    name: 'Secrets',
    description:
      'Workspace secrets: write-only values that api steps and http monitors use as `{{secrets.NAME}}`, sent only to ' +
      'the hosts of their `allowedHosts`; encrypted at rest, never answered, logged, stored in results or sent in events.',
  },
  {
    name: 'Reports',
    description:
      'Uptime over days, ISO weeks or months in a timezone, counted second by second under the workspace accounting ' +
      'policy that every figure names (maintenance, degraded and no-data time), with SLA error budgets; as JSON or CSV, ' +
      'and mailed monthly to the report recipients.',
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
    createMonitorSchema,
    'CreateMonitorInput',
    'One of the six kinds, by `type`: `http` (the default when `type` is omitted), `tcp`, `heartbeat`, `dns`, `api` or ' +
      '`domain`. ' +
      'Unknown ' +
      'fields, and fields of another type, are 400.',
  );
  name(
    createHttpMonitorSchema,
    'CreateHttpMonitorInput',
    'An http(s) check, the kind a body without `type` is. Defaults: `method` GET, `intervalSeconds` 60, `timeoutMs` 10000, ' +
      '`openThreshold` 2, `resolveThreshold` 2, `environment` "production", `contentType` application/json, ' +
      '`expectedStatusCodes` empty (any 2xx or 3xx). A check fails on a connection or DNS error, a timeout, an unexpected ' +
      'status (after up to 5 redirects), a missing `keyword`, a present `keywordAbsent`, a failing `jsonAssertion`, or a ' +
      'response slower than `latencyThresholdMs`; one slower than `degradedAfterMs` passes as degraded.',
  );
  describeSchema(createHttpMonitorSchema.shape.type, '`http`; omitted, the body is read as http.');
  name(
    updateMonitorSchema,
    'UpdateMonitorInput',
    "Every field optional; only the provided ones change. Which fields apply depends on the monitor's type, as on create.",
  );
  describeSchema(updateMonitorSchema.shape.type, 'Cannot be changed after creation: sent at all, 400.', true);
  describeSchema(updateMonitorSchema.shape.metadata, 'Set on create only: sent at all, 400.', true);
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
    createDnsMonitorSchema,
    'CreateDnsMonitorInput',
    "A DNS check: asks `dnsResolver` (`ip[:port]`, default the worker's resolver) for the `dnsRecordType` records (default A) " +
      'of `target` (a host name). Passes when every `dnsExpected` value is among the answers (case-insensitive, no trailing ' +
      `dot; at most ${L.dnsExpectedMax}), written as \`dig +short\` prints them. Failure reasons: dns_nxdomain, dns_error, ` +
      'dns_mismatch, timeout.',
  );
  name(
    createApiMonitorSchema,
    'CreateApiMonitorInput',
    'A multi-step API check: `steps` (1 to 10) run in order, each one request whose url, headers and body may use ' +
      "`{{name}}` (an earlier step's `extract`) and `{{secrets.NAME}}` (a workspace secret, sent only to its `allowedHosts`). " +
      'A step passes on its expected status, its `assertions`, its `responseSchema` and its extracts; the run stops at the ' +
      'first failure (reason `step_failed: <step name>: <reason>`), except `always` steps (cleanup), which run after a ' +
      'failure too and never hide it. Every step passes the SSRF guard when it runs; `timeoutMs` bounds the whole run.',
  );
  name(
    createDomainMonitorSchema,
    'CreateDomainMonitorInput',
    "A domain's registration expiry over RDAP: `target` is a registrable domain (`example.com`, `example.co.uk`; a " +
      'subdomain is 400). Fails with `domain_expiring` when the registration expires within `domainExpiryDays` (default ' +
      '30), `domain_not_found` when the registry does not know it, `rdap_error` when the lookup fails; a registry that ' +
      `publishes no expiry never fails. \`intervalSeconds\` default 86400, at least ${L.domainIntervalMin}; one region, no ` +
      'timeout or latency rules. Each domain is looked up at most once per 6 hours, whatever the number of monitors.',
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
  for (const option of escalationTargetSchema.options) {
    const channel = option.shape.channel.value;
    name(option, `${channel[0]!.toUpperCase()}${channel.slice(1)}TargetInput`);
  }
  name(
    escalationTargetSchema,
    'EscalationTargetInput',
    'Who a step pages. webhook, slack, teams, discord, ntfy: `target`, an absolute http(s) URL (refused when it resolves to a ' +
      'private or internal address); email: `target`, an address; pagerduty: `routingKey` (an Events API v2 Integration Key); ' +
      'opsgenie: `apiKey`; telegram: `botToken` and `chatId`; schedule: `target`, a schedule of the workspace (whoever is on ' +
      'call when the step fires); user: `target`, a member. Schedule and user targets page through the contact methods of ' +
      'the person they reach (`PUT /me/contact-methods`). Stored encrypted; records show only `display`.',
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
}

const refName = (r: unknown) => (r as { $ref?: string }).$ref?.split('/').pop();

function buildRegistry(): OpenAPIRegistry {
  nameSharedSchemas();
  const registry = new OpenAPIRegistry();

  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description:
      'Every request carries `Authorization: Bearer <token>`. Three token kinds are accepted, told apart by their prefix:\n\n' +
      '| Kind | Prefix | Behaviour |\n|---|---|---|\n' +
      '| Organisation token | `sv_` | Bound to one workspace with a fixed role. Created with the admin CLI (`npm run admin -- token create --kind org --workspace <slug> --role <role>`); `npm start` prints one for the `demo` workspace. |\n' +
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
  // The optional request headers, each a parameter component.
  const optionalHeaders: Array<
    [component: string, name: string, description: string, maxLength: number, example: string]
  > = [
    ['IdempotencyKey', 'Idempotency-Key', IDEMPOTENCY_DESCRIPTION, 255, '5f1d8e5e-3a9b-4c1e-9e57-2a4d1b0e6c3f'],
    ['IfMatch', 'If-Match', IF_MATCH_DESCRIPTION, 1000, '"3"'],
    ['IfNoneMatch', 'If-None-Match', IF_NONE_MATCH_DESCRIPTION, 1000, '"3"'],
  ];
  for (const [component, name, description, maxLength, example] of optionalHeaders) {
    registry.registerComponent('parameters', component, {
      name,
      in: 'header',
      required: false,
      description,
      schema: { type: 'string', minLength: 1, maxLength },
      example,
    });
  }
  registry.registerComponent('responses', 'NotModified', NOT_MODIFIED);
  // The path parameters (PATH_PARAMETERS of openapi-operation.ts), each a record's uuid.
  const pathIds: Array<[component: string, name: string, description: string]> = [
    ['Id', 'id', 'The record id, a uuid. An id that is not a uuid, or that belongs to another workspace, is 404.'],
    [
      'SubscriberId',
      'subscriberId',
      "A subscriber's id, a uuid. One that is not a uuid, or that belongs to another page, is 404.",
    ],
    [
      'UserId',
      'userId',
      "A member's user id, a uuid. One that is not a uuid, or not a member of this workspace, is 404.",
    ],
    ['OverrideId', 'overrideId', "An override's id, a uuid. One that is not a uuid, or not of this schedule, is 404."],
  ];
  for (const [component, name, description] of pathIds) {
    registry.registerComponent('parameters', component, {
      name,
      in: 'path',
      required: true,
      description,
      schema: { type: 'string', format: 'uuid' },
    });
  }
  registry.registerComponent('parameters', 'SecretName', {
    name: 'name',
    in: 'path',
    required: true,
    description: "A workspace secret's name (`[A-Z][A-Z0-9_]{0,63}`). One the workspace has none of is 404.",
    schema: { type: 'string', pattern: '^[A-Z][A-Z0-9_]{0,63}$' },
  });

  // The records are named where they are defined (`.openapi('Monitor')` ...) and become components when an operation
  // uses them; the error envelope is used by reference only, so it is registered by name.
  registry.register('Error', errorEnvelopeSchema);
  for (const route of API_ROUTES) registry.registerPath(operationOf(route));
  // Every GET path answers HEAD (Express), each error without its body: a component per error a HEAD can get.
  const heads = API_ROUTES.filter((route) => route.method === 'get').map(headOperationOf);
  for (const head of heads) registry.registerPath(head);
  const headErrors = new Set(heads.flatMap((head) => Object.values(head.responses).map(refName)));
  for (const [name, r] of Object.entries(ERROR_RESPONSES)) {
    if (headErrors.has(headResponseName(name)))
      registry.registerComponent('responses', headResponseName(name), {
        description: r.description,
        headers: r.headers,
      });
  }
  registerWebhooks(registry);
  return registry;
}

type SchemaObject = { oneOf?: unknown[]; anyOf?: unknown[]; discriminator?: { mapping?: Record<string, unknown> } };

/**
 * A discriminated union one of whose options may leave the discriminator out (POST /monitors: an http body without
 * `type`) has no discriminator in OpenAPI's terms, where the property must be present (and openapi-typescript would
 * make it required in that option): it is documented as the anyOf of its options, as the body is parsed.
 */
function withOptionalDiscriminators<D extends { components?: { schemas?: Record<string, unknown> } }>(doc: D): D {
  for (const schema of Object.values(doc.components?.schemas ?? {}) as SchemaObject[]) {
    const options = schema.oneOf;
    if (!options || !schema.discriminator) continue;
    if (Object.keys(schema.discriminator.mapping ?? {}).length >= options.length) continue;
    delete schema.oneOf;
    delete schema.discriminator;
    schema.anyOf = options;
  }
  withNullableRefs(doc);
  return doc;
}

/**
 * The generator writes a named schema made nullable (`jsonAssertionSchema.nullable()`) as `allOf: [ref, { type:
 * [..., 'null'] }]`, which admits no null (allOf needs the ref too): written as what it parses, `anyOf: [ref, null]`.
 */
function withNullableRefs(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(withNullableRefs);
  if (node === null || typeof node !== 'object') return;
  const schema = node as { allOf?: unknown[]; anyOf?: unknown[] };
  const [ref, nullable, ...rest] = schema.allOf ?? [];
  const type = (nullable as { type?: unknown } | undefined)?.type;
  if (
    rest.length === 0 &&
    typeof (ref as { $ref?: unknown } | undefined)?.$ref === 'string' &&
    Object.keys(nullable ?? {}).length === 1 &&
    Array.isArray(type) &&
    type.includes('null')
  ) {
    delete schema.allOf;
    schema.anyOf = [ref, { type: 'null' }];
  }
  Object.values(node).forEach(withNullableRefs);
}

let memo: object | undefined;

/** The OpenAPI 3.1 document, built once per process (it is a pure function of the schemas). */
export function buildOpenApiDocument(): object {
  memo ??= withOptionalDiscriminators(
    new OpenApiGeneratorV31(buildRegistry().definitions).generateDocument({
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
    }),
  );
  return memo;
}

const INFO_DESCRIPTION = [
  'Provision and read a Statusvane workspace programmatically: monitors, status pages, incidents and maintenance windows.',
  '',
  'The interface version is carried in the base path `/api/v1`; this description is version 1.0.0. All bodies are JSON ' +
    '(`Content-Type: application/json`).',
  '',
  '**Envelopes.** A single record is returned as `{ "data": <record> }`, a list as `{ "data": [...], "pagination": {...} }`. ' +
    'An error is `{ "error": { "code", "message", "details"? } }` with one of the codes `invalid_request` (400; 413 for a body ' +
    'over 256 KiB; 405 with `Allow` for a method a path does not take), `unauthorized` ' +
    '(401), `forbidden` (403), `not_found` (404), `conflict` (409), `rate_limited` (429), `internal` (500, or 503 when a ' +
    'dependency is unavailable).',
  '',
  '**Success codes.** POST that creates: 201. GET, PATCH and the incident actions: 200. DELETE: 204 with no body.',
  '',
  '**Lists.** `page` is 1-indexed (default 1), `perPage` 1 to 250 (default 25). Unknown query parameters are 400 on ' +
    'every operation. A body, where one is sent, must be JSON; an operation that takes none accepts `{}` at most.',
  '',
  '**Authentication.** A bearer token (`sv_`, `svu_` or `mcp_at_`) bound to a workspace; personal and OAuth tokens pick the ' +
    'workspace with the `X-Statusvane-Workspace` header. Roles: `owner`, `admin`, `member`, `viewer`; each operation names the ' +
    'roles it needs.',
  '',
  '**Rate limits.** Per token, 600 requests per minute by default. Responses carry `RateLimit-Limit`, `RateLimit-Remaining` and ' +
    '`RateLimit-Reset`; a spent limit is 429 with `Retry-After`.',
  '',
  '**Safe retries.** Every POST that creates (monitors, status pages, maintenance windows) accepts an `Idempotency-Key` ' +
    'header: a retry with the same key and body replays the first answer.',
  '',
  '**Tracing.** Every response carries `X-Request-Id` (a safe one sent by the client is echoed).',
  '',
  '**Outside this base (no token).** `GET /status/{slug}` is a public status page: HTML, or with `Accept: application/json` ' +
    'the page wrapped as every answer is, `{ "data": { page, summary, generatedAt, sections, components, incidents, ' +
    "pastIncidents, maintenance, uptime } }` (`summary` and each component's `state` in one vocabulary: `operational`, " +
    '`degraded_performance`, `partial_outage`, `major_outage` or `under_maintenance`). Below it, HTML: `/incidents/{incidentId}` (the page of an incident, ' +
    'the link feeds, `summary.json` and subscriber messages give), `/history?month=YYYY-MM` and `/subscribe`. `GET /` and `GET /api/v1` answer ' +
    'an index linking this reference, this document and the service status. A password-protected page ' +
    'answers 401 until `POST /status/{slug}/login`. `GET`, `HEAD` or `POST /ping/{secret}` records a heartbeat ping (the ' +
    "monitor's `pingUrl`), `/ping/{secret}/fail` a failure reported at once; an unknown secret is 404.",
].join('\n');
