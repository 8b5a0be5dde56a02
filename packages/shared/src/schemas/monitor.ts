import { z } from 'zod';
import { JSON_ASSERTION_OPERATORS, JsonPathSyntaxError, parseJsonPath } from '../json-assertion/json-assertion.js';
import { parseHostPort } from '../ssrf/index.js';
import { cronProblem, isTimeZone } from '../heartbeat/expected.js';

/** Limits from the spec, in one place (the OpenAPI document and the tests read them too). */
export const MONITOR_LIMITS = {
  nameMax: 120,
  intervalMin: 60,
  intervalMax: 86_400,
  timeoutMin: 1000,
  timeoutMax: 30_000,
  thresholdMin: 1,
  thresholdMax: 10,
  latencyMin: 1,
  latencyMax: 60_000,
  keywordMax: 200,
  bodyMax: 32_768,
  contentTypeMax: 200,
  environmentMax: 60,
  metadataEntriesMax: 20,
  metadataKeyMax: 64,
  metadataValueMax: 500,
  graceMin: 0,
  graceMax: 86_400,
  headersMax: 50,
  headerValueMax: 8192,
  targetMax: 2048,
  statusCodesMax: 100,
} as const;
const L = MONITOR_LIMITS;
/** `timeoutMs` when a create does not give one (decisions: 10000). */
export const DEFAULT_TIMEOUT_MS = 10_000;

export const MONITOR_TYPES = ['http', 'heartbeat', 'tcp'] as const;
export const HTTP_METHODS = ['GET', 'HEAD', 'POST'] as const;

const name = z.string().trim().min(1).max(L.nameMax);
const intervalSeconds = z.number().int().min(L.intervalMin).max(L.intervalMax);
const timeoutMs = z.number().int().min(L.timeoutMin).max(L.timeoutMax);
const threshold = z.number().int().min(L.thresholdMin).max(L.thresholdMax);
const latency = z.number().int().min(L.latencyMin).max(L.latencyMax);
const environment = z.string().max(L.environmentMax);

/** An absolute http(s) URL without credentials. The SSRF guard runs on it afterwards, in the service. */
export const httpTargetSchema = z
  .string()
  .max(L.targetMax)
  .superRefine((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be an absolute http or https URL' });
      return;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      ctx.addIssue({ code: 'custom', message: 'only http and https URLs can be monitored' });
    if (url.username || url.password)
      ctx.addIssue({ code: 'custom', message: 'credentials in the URL are not allowed: send them in headers' });
    if (!url.hostname) ctx.addIssue({ code: 'custom', message: 'the URL has no host' });
  });

/** `host:port`, IPv6 as `[addr]:port`, port 1-65535. */
export const tcpTargetSchema = z
  .string()
  .max(300)
  .superRefine((value, ctx) => {
    try {
      parseHostPort(value);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: `must be host:port (${(err as Error).message})` });
    }
  });

// RFC 9110 token characters for header names; values may not carry CR, LF or NUL (header injection). A `__proto__`
// name (in headers or metadata) never reaches a refinement: Zod drops it while copying, so the monitor service
// refuses it on the raw input.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
const FORBIDDEN_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'upgrade',
  'te',
  'trailer',
  'keep-alive',
  'proxy-connection',
]);
export const headersSchema = z
  .record(
    z.string(),
    z
      .string()
      .max(L.headerValueMax)
      .regex(/^[^\r\n\0]*$/, 'header values may not contain CR, LF or NUL'),
  )
  .superRefine((headers, ctx) => {
    const names = Object.keys(headers);
    if (names.length > L.headersMax) ctx.addIssue({ code: 'custom', message: `at most ${L.headersMax} headers` });
    const seen = new Set<string>();
    for (const n of names) {
      const lower = n.toLowerCase();
      if (!HEADER_NAME.test(n)) ctx.addIssue({ code: 'custom', path: [n], message: 'not a valid header name' });
      else if (FORBIDDEN_HEADERS.has(lower))
        ctx.addIssue({
          code: 'custom',
          path: [n],
          message: 'this header is set by the probe and cannot be overridden',
        });
      if (seen.has(lower))
        ctx.addIssue({ code: 'custom', path: [n], message: 'duplicate header name (names are case-insensitive)' });
      seen.add(lower);
    }
  });

export const metadataSchema = z
  .record(z.string().min(1).max(L.metadataKeyMax), z.string().max(L.metadataValueMax))
  .refine((m) => Object.keys(m).length <= L.metadataEntriesMax, `at most ${L.metadataEntriesMax} entries`);

export const jsonAssertionSchema = z
  .object({
    // The same parser the probe uses, so a path the probe cannot follow is refused at write time.
    path: z
      .string()
      .min(1)
      .max(500)
      .superRefine((p, ctx) => {
        try {
          parseJsonPath(p);
        } catch (err) {
          if (!(err instanceof JsonPathSyntaxError)) throw err;
          ctx.addIssue({ code: 'custom', message: `not a valid path: ${err.message}` });
        }
      }),
    operator: z.enum(JSON_ASSERTION_OPERATORS),
    value: z.union([z.string().max(1000), z.number(), z.boolean(), z.null()]).optional(),
  })
  .strict()
  .superRefine((a, ctx) => {
    const needsValue = a.operator !== 'exists' && a.operator !== 'notExists';
    if (needsValue && a.value === undefined)
      ctx.addIssue({ code: 'custom', path: ['value'], message: `operator ${a.operator} needs a value` });
    if (!needsValue && a.value !== undefined)
      ctx.addIssue({ code: 'custom', path: ['value'], message: `operator ${a.operator} takes no value` });
    if (['gt', 'gte', 'lt', 'lte'].includes(a.operator) && typeof a.value !== 'number') {
      ctx.addIssue({ code: 'custom', path: ['value'], message: `operator ${a.operator} compares numbers` });
    }
  });

const statusCodes = z.array(z.number().int().min(100).max(599)).max(L.statusCodesMax);

/** Heartbeats: a run (from `/start` to its end) longer than this fails with `run_too_long`. */
const maxRunSeconds = z.number().int().min(1).max(L.graceMax);
/** Heartbeats: a 5-field cron expression (minute hour day-of-month month day-of-week), instead of intervalSeconds. */
const schedule = z
  .string()
  .trim()
  .max(100)
  .superRefine((v, ctx) => {
    const problem = cronProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', message: `not a 5-field cron expression: ${problem}` });
  });
/** Heartbeats: the schedule's IANA time zone. */
const timezone = z
  .string()
  .max(64)
  .refine(isTimeZone, { message: 'not an IANA time zone name (such as Europe/Berlin or UTC)' });

/** Fields every monitor type accepts. */
const commonFields = {
  name,
  intervalSeconds: intervalSeconds.optional(),
  openThreshold: threshold.optional(),
  resolveThreshold: threshold.optional(),
  environment: environment.optional(),
  metadata: metadataSchema.optional(),
};
/** Fields of checks that make a connection (http and tcp). */
const probeFields = {
  timeoutMs: timeoutMs.optional(),
  degradedAfterMs: latency.optional(),
  latencyThresholdMs: latency.optional(),
};
const httpOnlyFields = {
  method: z.enum(HTTP_METHODS).optional(),
  expectedStatusCodes: statusCodes.optional(),
  // Up to 200 characters, as the spec says; "" means no keyword and is stored as null (docs/decisions.md).
  keyword: z.string().max(L.keywordMax).optional(),
  keywordAbsent: z.string().max(L.keywordMax).optional(),
  headers: headersSchema.optional(),
  body: z.string().max(L.bodyMax).optional(),
  contentType: z
    .string()
    .min(1)
    .max(L.contentTypeMax)
    .regex(/^[^\r\n\0]*$/)
    .optional(),
  jsonAssertion: jsonAssertionSchema.optional(),
};

export const createHttpMonitorSchema = z
  .object({ type: z.literal('http'), target: httpTargetSchema, ...commonFields, ...probeFields, ...httpOnlyFields })
  .strict();
export const createTcpMonitorSchema = z
  .object({ type: z.literal('tcp'), target: tcpTargetSchema, ...commonFields, ...probeFields })
  .strict();
export const createHeartbeatMonitorSchema = z
  .object({
    type: z.literal('heartbeat'),
    ...commonFields,
    graceSeconds: z.number().int().min(L.graceMin).max(L.graceMax).optional(),
    maxRunSeconds: maxRunSeconds.optional(),
    schedule: schedule.optional(),
    timezone: timezone.optional(),
  })
  .strict();

/** The union inside createMonitorSchema, without the `type` default: what the OpenAPI document describes. */
export const createMonitorUnionSchema = z.discriminatedUnion('type', [
  createHttpMonitorSchema,
  createTcpMonitorSchema,
  createHeartbeatMonitorSchema,
]);

/**
 * POST /monitors: discriminated on `type`; an omitted type means `http` (older clients keep working).
 * `enabled` is refused on create: a monitor starts enabled.
 */
export const createMonitorSchema = z.preprocess(
  (input) =>
    input && typeof input === 'object' && !Array.isArray(input) && !('type' in input)
      ? { ...input, type: 'http' }
      : input,
  createMonitorUnionSchema,
);
export type CreateMonitorInput = z.infer<typeof createMonitorSchema>;

const refusedOnUpdate = (what: string) =>
  z
    .unknown()
    .superRefine((_v, ctx) => ctx.addIssue({ code: 'custom', message: `${what} cannot be changed after creation` }));

/**
 * PATCH /monitors/{id}: every field optional; `type` and `metadata` are refused. Which fields apply depends on
 * the stored monitor's type, so the service checks `fieldsForType` after this parse. `headers: {}` and
 * `body: null` clear the secrets; a given value replaces them whole.
 */
export const updateMonitorSchema = z
  .object({
    name: name.optional(),
    target: z.string().max(L.targetMax).optional(),
    intervalSeconds: intervalSeconds.optional(),
    openThreshold: threshold.optional(),
    resolveThreshold: threshold.optional(),
    environment: environment.optional(),
    timeoutMs: timeoutMs.optional(),
    degradedAfterMs: latency.nullable().optional(),
    latencyThresholdMs: latency.nullable().optional(),
    method: z.enum(HTTP_METHODS).optional(),
    expectedStatusCodes: statusCodes.optional(),
    keyword: z.string().max(L.keywordMax).nullable().optional(),
    keywordAbsent: z.string().max(L.keywordMax).nullable().optional(),
    headers: headersSchema.optional(),
    body: z.string().max(L.bodyMax).nullable().optional(),
    contentType: z
      .string()
      .min(1)
      .max(L.contentTypeMax)
      .regex(/^[^\r\n\0]*$/)
      .optional(),
    jsonAssertion: jsonAssertionSchema.nullable().optional(),
    graceSeconds: z.number().int().min(L.graceMin).max(L.graceMax).optional(),
    maxRunSeconds: maxRunSeconds.nullable().optional(),
    schedule: schedule.nullable().optional(),
    timezone: timezone.optional(),
    enabled: z.boolean().optional(),
    type: refusedOnUpdate('type').optional(),
    metadata: refusedOnUpdate('metadata').optional(),
  })
  .strict();
export type UpdateMonitorInput = z.infer<typeof updateMonitorSchema>;

/** The update fields each type accepts (the create schemas say the same for create). */
export const UPDATE_FIELDS_BY_TYPE: Record<(typeof MONITOR_TYPES)[number], ReadonlySet<string>> = {
  http: new Set([
    'name',
    'target',
    'intervalSeconds',
    'openThreshold',
    'resolveThreshold',
    'environment',
    'enabled',
    ...Object.keys(probeFields),
    ...Object.keys(httpOnlyFields),
  ]),
  tcp: new Set([
    'name',
    'target',
    'intervalSeconds',
    'openThreshold',
    'resolveThreshold',
    'environment',
    'enabled',
    ...Object.keys(probeFields),
  ]),
  heartbeat: new Set([
    'name',
    'intervalSeconds',
    'openThreshold',
    'resolveThreshold',
    'environment',
    'enabled',
    'graceSeconds',
    'maxRunSeconds',
    'schedule',
    'timezone',
  ]),
};
