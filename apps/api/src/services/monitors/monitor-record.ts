import {
  apiStepSchema,
  certificateDaysRemaining,
  coveringWindows,
  coveringWindowsJson,
  createBatchLoader,
  hotQuery,
  hotBatchStatement,
  forKeys,
  monitorQuorum,
  monitorRegions,
  DNS_RECORD_TYPES,
  expectedAfter,
  HTTP_METHODS,
  jsonAssertionSchema,
  MONITOR_TYPES,
  perClient,
  type CertificateInfo,
  type DomainInfo,
  type CoverageWindow,
  type CoveringWindowJson,
  type StoredApiStep,
  Prisma,
  type PrismaClient,
} from '@statusvane/shared';
import { dateTime, versionSchema, z } from '../../schemas/zod.js';
import type { OwnKey, OwnLookup } from '../records.js';

/** The leaf certificate an https check saw (stored with each result; the monitor record shows the latest). */
export const certificateSchema = z
  .object({
    subject: z.string().openapi({ example: 'CN=example.com' }),
    issuer: z.string().openapi({ example: "C=US, O=Let's Encrypt, CN=R11" }),
    validFrom: dateTime,
    validTo: dateTime,
    daysRemaining: z
      .number()
      .int()
      .openapi({ description: 'Whole days until validTo, counted from now (negative once expired).' }),
    fingerprint256: z.string().openapi({ description: 'SHA-256 fingerprint, colon-separated hex pairs.' }),
  })
  .openapi('Certificate');

/** A domain monitor's registration, as the latest RDAP lookup found it. */
export const domainRecordSchema = z
  .object({
    expiresAt: dateTime.nullable().openapi({
      description:
        'When the registration expires; null when the registry publishes no expiry (such a domain never pages).',
    }),
    daysRemaining: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'Whole days until expiresAt, counted from now (negative once expired); null with it.' }),
    registrar: z.string().nullable().openapi({ description: "The registrar's name, when the registry gives it." }),
  })
  .openapi('DomainRegistration');

/** An api monitor's step as records show it: its headers by name and its body by presence (both write-only). */
export const apiStepRecordSchema = apiStepSchema
  .omit({ headers: true, body: true })
  .extend({
    headerNames: z
      .array(z.string())
      .openapi({ description: 'Names of the custom headers; their values are write-only.' }),
    hasBody: z.boolean().openapi({ description: 'Whether a body is stored; the body itself is write-only.' }),
  })
  .openapi('ApiStepRecord');

export const MONITOR_STATUSES = ['pending', 'up', 'degraded', 'down', 'paused', 'maintenance'] as const;

/**
 * The monitor record as the document describes it; toMonitorRecord is typed by it, so the two cannot drift. Records
 * are plain (non-strict) objects: a client must tolerate new fields.
 */
export const monitorRecordSchema = z
  .object({
    id: z.uuid(),
    ref: z.string().nullable().openapi({
      description: 'The name a workspace document (`POST /config/apply`) manages the monitor by; null: not managed.',
    }),
    version: versionSchema,
    name: z.string(),
    componentId: z.uuid().openapi({ description: "The monitor's public component, created with the monitor." }),
    escalationPolicyId: z.uuid().nullable().openapi({
      description: "The monitor's escalation policy; null: the workspace default applies (set with PATCH).",
    }),
    type: z.enum(MONITOR_TYPES),
    target: z.string().nullable().openapi({
      description:
        'The URL (http), `host:port` (tcp), host name to query (dns) or registrable domain (domain); null for heartbeat and api.',
    }),
    method: z.enum(HTTP_METHODS).nullable().openapi({ description: 'HTTP method of the check; null for other types.' }),
    intervalSeconds: z.number().int(),
    timeoutMs: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'Bound on one check; null for heartbeat (no check runs) and domain (a shared lookup).' }),
    openThreshold: z.number().int(),
    resolveThreshold: z.number().int(),
    regions: z.array(z.string()).openapi({
      description:
        "The regions (of the deployment's CHECK_REGIONS) that check the monitor; all of them unless set. A heartbeat is judged once, in the first region.",
    }),
    quorum: z.number().int().openapi({
      description:
        'How many of `regions` must be failing (each by its own consecutive counts against the thresholds) to open an incident; fewer resolve it. Default: a majority, floor(n/2)+1.',
    }),
    confirmAfterSeconds: z.number().int().openapi({
      description:
        'After a result that moves a region toward a threshold not reached yet, that region checks again this many seconds later, then returns to its schedule; also the shortest time between two counted results of a region (the interval when 0 = off).',
    }),
    dependsOn: z.array(z.uuid()).openapi({
      description:
        "Monitors of the workspace this one depends on: while one of them has an open incident, this monitor's incidents open but page nobody (`suppressedBy`).",
    }),
    expectedStatusCodes: z.array(z.number().int()).openapi({ description: 'Empty: any 2xx or 3xx is healthy.' }),
    keyword: z.string().nullable(),
    keywordAbsent: z.string().nullable(),
    degradedAfterMs: z.number().int().nullable(),
    latencyThresholdMs: z.number().int().nullable(),
    headerNames: z
      .array(z.string())
      .openapi({ description: 'Names of the custom request headers. Their values are write-only.' }),
    hasBody: z.boolean().openapi({ description: 'Whether a request body is stored. The body itself is write-only.' }),
    contentType: z
      .string()
      .nullable()
      .openapi({ description: 'Content-Type of the request body (http); null for tcp and heartbeat.' }),
    // A union with null, not `.nullable()`: the generator would otherwise fold the null into the shared
    // JsonAssertion component, making it nullable on create too.
    jsonAssertion: z
      .union([jsonAssertionSchema, z.null()])
      .openapi({ description: 'The JSON assertion, or null when none is set.' }),
    responseSchema: z.union([z.record(z.string(), z.unknown()), z.null()]).openapi({
      description:
        'http only: the JSON Schema the response body must match (`schema_mismatch`); null when none is set.',
    }),
    steps: z.union([z.array(apiStepRecordSchema), z.null()]).openapi({
      description:
        'api only: the steps, run in order (headers by name, bodies by presence: both write-only); null for other types. ' +
        'A PATCH replaces them all; a header value or body `"<redacted>"` keeps that of the stored step of the same name.',
    }),
    environment: z.string(),
    metadata: z
      .record(z.string(), z.string())
      .openapi({ description: 'Labels copied onto every incident the monitor opens.' }),
    slaTarget: z
      .number()
      .nullable()
      .openapi({
        description:
          'The uptime it promises in percent (90 to 99.9999), or null: uptime reports then add `slaMet` and the error ' +
          'budget (GET /monitors/{id}/uptime).',
      }),
    graceSeconds: z.number().int().nullable().openapi({ description: 'Heartbeat only; null for other types.' }),
    certificateExpiryDays: z.number().int().nullable().openapi({
      description:
        'http only: an https check whose certificate expires within this many days fails with `certificate_expiring`; null = off (and for other types).',
    }),
    sendTraceparent: z.boolean().nullable().openapi({
      description:
        'http only: each check sends a W3C `traceparent` header, and its result keeps the trace id (`traceId`); null for other types.',
    }),
    certificate: z.union([certificateSchema, z.null()]).openapi({
      description:
        'http only: the leaf certificate of the latest https check that completed a TLS handshake; null before one did, after the target changed, and for other types.',
    }),
    domainExpiryDays: z.number().int().nullable().openapi({
      description:
        'domain only: a registration that expires within this many days fails with `domain_expiring` (default 30); null for other types.',
    }),
    domain: z.union([domainRecordSchema, z.null()]).openapi({
      description:
        'domain only: the registration the latest lookup found (one RDAP lookup per domain per 6 hours, shared by every monitor of it); null before one did, after the target changed, and for other types.',
    }),
    dnsRecordType: z
      .enum(DNS_RECORD_TYPES)
      .nullable()
      .openapi({ description: 'dns only: the record type asked; null for other types.' }),
    dnsResolver: z.string().nullable().openapi({
      description:
        "dns only: the resolver asked (`ip[:port]`); null = the worker's system resolver (and for other types).",
    }),
    dnsExpected: z.array(z.string()).openapi({
      description:
        'dns only: answers that must all be present (case-insensitive, without a trailing dot). Empty: any answer passes.',
    }),
    schedule: z
      .string()
      .nullable()
      .openapi({
        description:
          'Heartbeat only: the 5-field cron expression pings are expected on, instead of `intervalSeconds` (which then ' +
          'only paces the backstop evaluation); null for an interval heartbeat and other types.',
      }),
    timezone: z.string().nullable().openapi({
      description: "Heartbeat only: the schedule's IANA time zone (default UTC); null for other types.",
    }),
    nextExpectedAt: dateTime.nullable().openapi({
      description:
        'Heartbeat only: when the next ping is due, grace not added: the first expected time after the last ping (or ' +
        'the creation), so it is in the past while the heartbeat is late. Null for other types.',
    }),
    maxRunSeconds: z.number().int().nullable().openapi({
      description:
        'Heartbeat only: a run (`/start` to its end ping) that took longer fails with `run_too_long`; null: no limit.',
    }),
    minRunSeconds: z
      .number()
      .int()
      .nullable()
      .openapi({
        description:
          'Heartbeat only: a run (`/start` to its success ping) that ended sooner fails with `run_too_short` (a backup ' +
          'that finished in 2 s did not run); below `maxRunSeconds` when both are set; null: no lower bound. A success ' +
          'ping that ends no run is not judged by it.',
      }),
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
        'Heartbeat only: the address the scheduled job pings (GET, HEAD or POST; `<pingUrl>/fail` reports a failure). Returned on create and on read; null for other types.',
    }),
  })
  .openapi('Monitor');
export type MonitorRecord = z.infer<typeof monitorRecordSchema>;

/**
 * The columns a monitor record needs; secrets (headersEnc, bodyEnc, stepSecretsEnc, pingSecret) are read only to
 * derive flags, or by a write that keeps the ones it was not sent (and the secrets they name).
 */
export const monitorRecordSelect = {
  id: true,
  ref: true,
  version: true,
  name: true,
  componentId: true,
  escalationPolicyId: true,
  type: true,
  target: true,
  method: true,
  intervalSeconds: true,
  timeoutMs: true,
  openThreshold: true,
  resolveThreshold: true,
  regions: true,
  quorum: true,
  confirmAfterSeconds: true,
  dependsOn: true,
  expectedStatusCodes: true,
  keyword: true,
  keywordAbsent: true,
  degradedAfterMs: true,
  latencyThresholdMs: true,
  headerNames: true,
  bodyEnc: true,
  headersEnc: true,
  encKeyId: true,
  steps: true,
  stepSecretsEnc: true,
  secretRefs: true,
  responseSchema: true,
  contentType: true,
  environment: true,
  metadata: true,
  slaTarget: true,
  jsonAssertion: true,
  graceSeconds: true,
  certificateExpiryDays: true,
  certificate: true,
  sendTraceparent: true,
  domainExpiryDays: true,
  domain: true,
  dnsRecordType: true,
  dnsResolver: true,
  dnsExpected: true,
  maxRunSeconds: true,
  minRunSeconds: true,
  schedule: true,
  timezone: true,
  lastPingAt: true,
  lastPingFailAt: true,
  enabled: true,
  status: true,
  pingSecret: true,
  lastCheckedAt: true,
  createdAt: true,
} satisfies Prisma.MonitorSelect;

export type MonitorRow = Prisma.MonitorGetPayload<{ select: typeof monitorRecordSelect }>;

/**
 * SQL: monitorRecordSelect's columns of `monitors m`, for the hot statements that read monitor rows (node-postgres
 * gives them as Prisma does: test/monitor-read.test.ts compares the two field by field).
 */
export const RECORD_COLUMNS = Object.keys(monitorRecordSelect)
  .map((column) => `m."${column}"`)
  .join(', ');

/**
 * The monitor read behind findOwn (every verb on one monitor) and GET /monitors/{id}: a hot statement
 * (docs/adr/0021-hot-statements-on-the-pool.md), as Prisma's mapping of its 55 columns cost about as much API CPU as the
 * statement's round trip. The columns are monitorRecordSelect's, so a field added there is read here too (and the
 * hot-read suite compares the two reads field by field). Each row answers only the (id, workspaceId) pair that asked
 * for it: the two lists may pair an id with another asker's workspace, and such a row answers nobody. The same
 * statement reads the windows (not cancelled) that cover the monitor's component at some moment of [$3, $4]
 * (coveringWindowsJson), when an asker gave its clock: GET /monitors/{id} shows the maintenance in progress, which took
 * a second statement (and round trip) before.
 */
const monitorRowsWhere = (match: string) => `
  SELECT ${RECORD_COLUMNS}, m."workspaceId"::text AS "workspaceId",
    ${
      coveringWindowsJson({
        workspaceId: Prisma.raw('m."workspaceId"'),
        componentId: Prisma.raw('m."componentId"'),
        from: Prisma.raw('$3::timestamptz'),
        to: Prisma.raw('$4::timestamptz'),
      }).text
    } AS windows
  FROM monitors m
  WHERE ${match}`;
const MONITOR_ROWS = hotBatchStatement(
  monitorRowsWhere('m.id = $1::uuid AND m."workspaceId" = $2::uuid'),
  monitorRowsWhere('m.id = ANY($1::uuid[]) AND m."workspaceId" = ANY($2::uuid[])'),
);

/** A monitor as its read gives it: the row, and the windows covering it around the asker's clock (else none). */
export interface MonitorWithWindows {
  row: MonitorRow;
  windows: CoverageWindow[];
}

/** A monitor read's key: the pair asked for and, to read its maintenance too, the asker's clock. */
interface MonitorKey extends OwnKey {
  now?: Date;
}

/**
 * Monitor reads of one event-loop turn in one statement (MONITOR_ROWS), each still scoped by its own workspace. Keys
 * with a clock are distinct per clock, so the windows read span every asker's instant (each judges its own exactly).
 */
const monitorRows = perClient((prisma: PrismaClient) =>
  createBatchLoader<MonitorKey, MonitorWithWindows>(
    async (keys) => {
      const times = keys.flatMap((k) => (k.now ? [k.now.getTime()] : []));
      const rows = await hotQuery<MonitorRow & { workspaceId: string; windows: CoveringWindowJson[] | null }>(
        prisma,
        ...forKeys(
          MONITOR_ROWS,
          [keys.map((k) => k.id), keys.map((k) => k.workspaceId)],
          [times.length ? new Date(Math.min(...times)) : null, times.length ? new Date(Math.max(...times)) : null],
        ),
      );
      const found = new Map<string, MonitorWithWindows>();
      for (const { workspaceId, windows, ...row } of rows) {
        found.set(`${workspaceId}/${row.id}`, { row, windows: coveringWindows(windows) });
      }
      return new Map(keys.flatMap((k) => monitorKeyed(found, k)));
    },
    { keyOf: monitorKeyOf },
  ),
);

const monitorKeyOf = (k: MonitorKey) => `${k.workspaceId}/${k.id}/${k.now?.getTime() ?? ''}`;
function monitorKeyed(found: Map<string, MonitorWithWindows>, k: MonitorKey): Array<[string, MonitorWithWindows]> {
  const hit = found.get(`${k.workspaceId}/${k.id}`);
  return hit ? [[monitorKeyOf(k), hit]] : [];
}

/** findOwn's lookup of one of the caller's monitors, batched (monitorRows). */
export const monitorLookup: OwnLookup<PrismaClient, MonitorRow> = {
  noun: 'monitor',
  find: async (prisma, key) => (await monitorRows(prisma).load({ id: key.id, workspaceId: key.workspaceId }))?.row,
};

/**
 * findOwn's lookup of one of the caller's monitors with the maintenance windows covering it at `now` (judge them with
 * maintenanceCoverage): one statement for what GET /monitors/{id} shows.
 */
export function monitorNowLookup(now: Date): OwnLookup<PrismaClient, MonitorWithWindows> {
  return {
    noun: 'monitor',
    find: (prisma, key) => monitorRows(prisma).load({ id: key.id, workspaceId: key.workspaceId, now }),
  };
}

/**
 * The columns of monitorRecordSelect that checks and pings write: what the monitor observes, never a change made
 * through the API, the admin CLI or config/apply. They move no version, record no audit event, and leave a config
 * plan's id as it was (a check between plan and apply is no conflict).
 */
export const OBSERVED_COLUMNS = [
  'status',
  'lastCheckedAt',
  'certificate',
  'domain',
  'lastPingAt',
  'lastPingFailAt',
] as const satisfies ReadonlyArray<keyof MonitorRow>;

/** The public monitor record. Headers and body are write-only: only their names and presence show. */
export function toMonitorRecord(
  row: MonitorRow,
  opts: { publicBaseUrl: string; checkRegions: readonly string[]; maintenanceUntil: Date | null; now: Date },
): MonitorRecord {
  const regions = monitorRegions(opts.checkRegions, row);
  // Written only by the worker, from a CertificateInfo.
  const certificate = row.type === 'http' ? (row.certificate as CertificateInfo | null) : null;
  return {
    id: row.id,
    ref: row.ref,
    version: row.version,
    name: row.name,
    componentId: row.componentId,
    escalationPolicyId: row.escalationPolicyId,
    type: row.type,
    target: row.target,
    // Fields of a kind of check the monitor does not run are null, not a default that would read as a setting.
    method: row.type === 'http' ? row.method : null,
    intervalSeconds: row.intervalSeconds,
    timeoutMs: row.type === 'heartbeat' || row.type === 'domain' ? null : row.timeoutMs,
    openThreshold: row.openThreshold,
    resolveThreshold: row.resolveThreshold,
    regions,
    quorum: monitorQuorum(regions.length, row.quorum),
    confirmAfterSeconds: row.confirmAfterSeconds,
    dependsOn: row.dependsOn,
    expectedStatusCodes: row.expectedStatusCodes,
    keyword: row.keyword,
    keywordAbsent: row.keywordAbsent,
    degradedAfterMs: row.degradedAfterMs,
    latencyThresholdMs: row.latencyThresholdMs,
    headerNames: row.headerNames,
    hasBody: row.bodyEnc !== null,
    contentType: row.type === 'http' ? row.contentType : null,
    // Written only from a parsed JsonAssertion (create, PATCH).
    jsonAssertion: (row.jsonAssertion ?? null) as MonitorRecord['jsonAssertion'],
    responseSchema: row.type === 'http' ? ((row.responseSchema ?? null) as MonitorRecord['responseSchema']) : null,
    // Written only from parsed steps, split by sealSteps.
    steps: row.type === 'api' ? ((row.steps ?? []) as StoredApiStep[]) : null,
    environment: row.environment,
    metadata: row.metadata as Record<string, string>,
    slaTarget: row.slaTarget,
    graceSeconds: row.type === 'heartbeat' ? row.graceSeconds : null,
    certificateExpiryDays: row.type === 'http' ? row.certificateExpiryDays : null,
    sendTraceparent: row.type === 'http' ? row.sendTraceparent : null,
    certificate: certificate && {
      ...certificate,
      daysRemaining: certificateDaysRemaining(certificate.validTo, opts.now),
    },
    domainExpiryDays: row.type === 'domain' ? row.domainExpiryDays : null,
    domain: row.type === 'domain' ? domainRecordOf(row.domain as DomainInfo | null, opts.now) : null,
    // Written only from a parsed DnsRecordType.
    dnsRecordType: row.type === 'dns' ? ((row.dnsRecordType ?? 'A') as MonitorRecord['dnsRecordType']) : null,
    dnsResolver: row.type === 'dns' ? row.dnsResolver : null,
    dnsExpected: row.type === 'dns' ? row.dnsExpected : [],
    schedule: row.type === 'heartbeat' ? row.schedule : null,
    timezone: row.type === 'heartbeat' ? row.timezone : null,
    nextExpectedAt: row.type === 'heartbeat' ? nextExpectedAt(row).toISOString() : null,
    maxRunSeconds: row.type === 'heartbeat' ? row.maxRunSeconds : null,
    minRunSeconds: row.type === 'heartbeat' ? row.minRunSeconds : null,
    enabled: row.enabled,
    status: !row.enabled ? 'paused' : opts.maintenanceUntil ? 'maintenance' : row.status,
    maintenanceUntil: opts.maintenanceUntil?.toISOString() ?? null,
    openEndedMaintenance: false,
    lastCheckedAt: row.lastCheckedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    pingUrl: row.type === 'heartbeat' && row.pingSecret ? `${opts.publicBaseUrl}/ping/${row.pingSecret}` : null,
  };
}

type RecordOptions = Parameters<typeof toMonitorRecord>[1];

/** A record made from a row, its JSON text (made when first asked for), and what besides the row it was made with. */
interface MadeRecord {
  made: string;
  record: MonitorRecord;
  json: () => string;
}
const madeFromRow = new WeakMap<MonitorRow, MadeRecord>();

/**
 * toMonitorRecord and the record's JSON text (`JSON.stringify(record)`), made once per row object and what the record
 * takes besides the row: the requests answered by one batched read (monitorRows, list-monitors' monitorPages) share
 * its row objects, so identical concurrent reads build and serialize each record once (serializing a page of 100 was
 * a fifth of a list request's CPU). The text is made when first asked for: the console's pages render records and
 * never send their JSON. What a record takes from `now` (whole days left of a certificate or a domain, the
 * maintenance window's end) is part of the key, so a record is never reused where it would read differently. Records
 * are shared: nothing may change one after it is made.
 */
export function recordWithJson(row: MonitorRow, opts: RecordOptions): { record: MonitorRecord; json: () => string } {
  const cert = row.certificate as CertificateInfo | null;
  const domain = row.domain as DomainInfo | null;
  const made = [
    opts.maintenanceUntil?.getTime() ?? '',
    cert ? certificateDaysRemaining(cert.validTo, opts.now) : '',
    domain?.expiresAt ? certificateDaysRemaining(domain.expiresAt, opts.now) : '',
    opts.publicBaseUrl,
    opts.checkRegions.join(','),
  ].join('|');
  const kept = madeFromRow.get(row);
  if (kept?.made === made) return kept;
  const record = toMonitorRecord(row, opts);
  let json: string | undefined;
  const fresh = { made, record, json: () => (json ??= JSON.stringify(record)) };
  madeFromRow.set(row, fresh);
  return fresh;
}

/** What checks observe, left out of a monitor's audited changes (writes through the API never set these). */
const OBSERVED = [
  'status',
  'maintenanceUntil',
  'openEndedMaintenance',
  'lastCheckedAt',
  'certificate',
  'domain',
  'nextExpectedAt',
];

/** A monitor as its audit events compare it: the record without what checks observe. */
export function monitorSettings(
  row: MonitorRow,
  config: { publicBaseUrl: string; checkRegions: readonly string[] },
): Partial<MonitorRecord> {
  const record: Partial<MonitorRecord> = toMonitorRecord(row, {
    publicBaseUrl: config.publicBaseUrl,
    checkRegions: config.checkRegions,
    maintenanceUntil: null,
    now: new Date(0),
  });
  for (const key of OBSERVED) delete record[key as keyof MonitorRecord];
  return record;
}

/** A heartbeat's next expected ping: the first expected time after its last ping of either kind (or its creation). */
function nextExpectedAt(row: MonitorRow): Date {
  const last = Math.max(row.lastPingAt?.getTime() ?? 0, row.lastPingFailAt?.getTime() ?? 0) || row.createdAt.getTime();
  return expectedAfter(
    row.schedule ? { schedule: row.schedule, timezone: row.timezone } : { intervalSeconds: row.intervalSeconds },
    new Date(last),
  );
}

/** A stored DomainInfo (written only by the worker) as the record shows it, days counted from `now`. */
function domainRecordOf(info: DomainInfo | null, now: Date): MonitorRecord['domain'] {
  if (!info) return null;
  return {
    expiresAt: info.expiresAt,
    daysRemaining: info.expiresAt === null ? null : certificateDaysRemaining(info.expiresAt, now),
    registrar: info.registrar,
  };
}
