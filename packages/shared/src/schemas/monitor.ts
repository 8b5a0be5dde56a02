import net from 'node:net';
import { domainToASCII } from 'node:url';
import { parse as parseDomain } from 'tldts';
import { z } from 'zod';
import { JSON_ASSERTION_OPERATORS } from '../json-assertion/json-assertion.js';
import { isValidPort, parseHostPort } from '../ssrf/index.js';
import { cronProblem, isTimeZone } from '../heartbeat/expected.js';
import { uuidInputSchema } from './input-fields.js';
import { shownText } from './shown-text.js';
import { headersSchema, httpTargetSchema, REQUEST_LIMITS, statusCodesSchema } from './request-fields.js';
import { apiStepsSchema, assertionValueIssues, jsonPathSchema, responseSchemaField } from './api-steps.js';

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
  ...REQUEST_LIMITS,
  statusCodesMax: 100,
  certificateExpiryDaysMin: 1,
  certificateExpiryDaysMax: 365,
  dnsExpectedMax: 20,
  dnsExpectedValueMax: 500,
  dnsResolverMax: 60,
  regionsMax: 20,
  confirmAfterMin: 0,
  confirmAfterMax: 300,
  dependsOnMax: 10,
  domainIntervalMin: 3600,
  domainExpiryDaysMin: 1,
  domainExpiryDaysMax: 365,
} as const;
const L = MONITOR_LIMITS;
/** `timeoutMs` when a create does not give one (decisions: 10000). */
export const DEFAULT_TIMEOUT_MS = 10_000;

export const MONITOR_TYPES = ['http', 'heartbeat', 'tcp', 'dns', 'api', 'domain'] as const;
export type MonitorKind = (typeof MONITOR_TYPES)[number];
export const DNS_RECORD_TYPES = ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS', 'CAA', 'SRV'] as const;
export type DnsRecordType = (typeof DNS_RECORD_TYPES)[number];
/** `confirmAfterSeconds` when a create does not give one. */
export const DEFAULT_CONFIRM_AFTER_SECONDS = 15;
/** `domainExpiryDays` when a create does not give one. */
export const DEFAULT_DOMAIN_EXPIRY_DAYS = 30;
/** A domain monitor's `intervalSeconds` when a create does not give one: registrations change slowly. */
export const DEFAULT_DOMAIN_INTERVAL_SECONDS = 86_400;
/** `certificateExpiryDays` when a create does not give one. */
export const DEFAULT_CERTIFICATE_EXPIRY_DAYS = 7;
export const HTTP_METHODS = ['GET', 'HEAD', 'POST'] as const;

const name = z.string().trim().min(1).max(L.nameMax).superRefine(shownText);
const intervalSeconds = z.number().int().min(L.intervalMin).max(L.intervalMax);
const timeoutMs = z.number().int().min(L.timeoutMin).max(L.timeoutMax);
const threshold = z.number().int().min(L.thresholdMin).max(L.thresholdMax);
const latency = z.number().int().min(L.latencyMin).max(L.latencyMax);
// Every value of the seed's range is accepted whatever `timeoutMs` is: one that cannot fire is harmless (a check
// slower than `timeoutMs` has already failed as a timeout), and clients written to the seed send such values.
const NEVER_FIRES = 'A value at or above `timeoutMs` never fires: a check that slow has already timed out.';
const degradedAfterMs = latency.meta({
  description:
    'A passing check slower than this (ms) is reported degraded and is still up. ' +
    NEVER_FIRES +
    ' Nor does one at or above `latencyThresholdMs`: slower than that fails the check.',
});
const latencyThresholdMs = latency.meta({
  description: 'A check slower than this (ms) fails, and opens an incident after the flap threshold. ' + NEVER_FIRES,
});
const environment = z.string().max(L.environmentMax);

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

// Letters, digits, '-' and '_' (SRV and TXT names such as `_sip._tcp.example.com`), 1-63 per label, 253 in all.
const DNS_LABEL = /^[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$/;

/** A DNS monitor's target: a host name to query (one trailing dot allowed), not an IP address. */
export const dnsHostSchema = z
  .string()
  .max(254)
  .superRefine((value, ctx) => {
    const name = value.endsWith('.') ? value.slice(0, -1) : value;
    if (net.isIP(name) !== 0) {
      ctx.addIssue({ code: 'custom', message: 'must be a host name to query, not an IP address' });
      return;
    }
    if (name.length === 0 || name.length > 253 || !name.split('.').every((label) => DNS_LABEL.test(label)))
      ctx.addIssue({
        code: 'custom',
        message: 'must be a host name (letters, digits, "-" and "_" in dot-separated labels)',
      });
  });

/** A DNS resolver: `ip`, `ip:port`, `[ipv6]` or `[ipv6]:port`; the port defaults to 53. Throws an Error otherwise. */
export function parseDnsResolver(value: string): { host: string; port: number } {
  if (net.isIP(value) !== 0) return { host: value, port: 53 };
  if (value.startsWith('[') && value.endsWith(']') && net.isIPv6(value.slice(1, -1)))
    return { host: value.slice(1, -1), port: 53 };
  const { host, port } = parseHostPort(value);
  if (net.isIP(host) === 0) throw new Error('must be an IP address, optionally with a port (ip[:port], [ipv6]:port)');
  if (!isValidPort(port)) throw new Error('the port must be 1-65535');
  return { host, port };
}

const dnsResolverSchema = z
  .string()
  .max(L.dnsResolverMax)
  .superRefine((value, ctx) => {
    try {
      parseDnsResolver(value);
    } catch (err) {
      const message = (err as Error).message;
      ctx.addIssue({
        code: 'custom',
        message: message.startsWith('must') ? message : `must be ip[:port] or [ipv6]:port (${message})`,
      });
    }
  });

/**
 * A domain name as RDAP is asked about it: lower case, IDNs in their ASCII (punycode) form, no trailing dot; null when
 * it is not a host name at all.
 */
export function normalizeDomain(value: string): string | null {
  const ascii = domainToASCII(value.endsWith('.') ? value.slice(0, -1) : value);
  return ascii === '' || net.isIP(ascii) !== 0 ? null : ascii;
}

/**
 * A domain monitor's target: a registrable domain (the name a registrant holds: `example.co.uk`, not
 * `www.example.co.uk` nor `co.uk`), judged by the ICANN section of the Public Suffix List (tldts), which is what
 * registries, and so RDAP, know about.
 */
export const domainTargetSchema = z
  .string()
  .max(254)
  .superRefine((value, ctx) => {
    const name = normalizeDomain(value);
    const parsed = name === null ? null : parseDomain(name, { allowPrivateDomains: false });
    if (!name || !parsed || !parsed.isIcann || parsed.domain === null) {
      ctx.addIssue({
        code: 'custom',
        message: 'must be a registrable domain under a public suffix (such as example.com or example.co.uk)',
      });
      return;
    }
    if (parsed.domain !== name)
      ctx.addIssue({
        code: 'custom',
        message: `must be a registrable domain, not a subdomain: monitor ${parsed.domain} instead`,
      });
  });

export const metadataSchema = z
  .record(z.string().min(1).max(L.metadataKeyMax), z.string().max(L.metadataValueMax))
  .refine((m) => Object.keys(m).length <= L.metadataEntriesMax, `at most ${L.metadataEntriesMax} entries`);

export const jsonAssertionSchema = z
  .object({
    // The same parser the probe uses, so a path the probe cannot follow is refused at write time.
    path: jsonPathSchema,
    operator: z.enum(JSON_ASSERTION_OPERATORS),
    value: z.union([z.string().max(1000), z.number(), z.boolean(), z.null()]).optional(),
  })
  .strict()
  .superRefine((a, ctx) => {
    for (const message of assertionValueIssues(a.operator, a.value))
      ctx.addIssue({ code: 'custom', path: ['value'], message });
  });

const statusCodes = statusCodesSchema;

/** Heartbeats: a run (from `/start` to its end) longer than this fails with `run_too_long`. */
const maxRunSeconds = z.number().int().min(1).max(L.graceMax);
/**
 * Heartbeats: a run that ended successfully sooner than this after its `/start` fails with `run_too_short`; below
 * maxRunSeconds when both are set (the service checks: the rule spans the stored monitor on a PATCH).
 */
const minRunSeconds = z.number().int().min(1).max(L.graceMax);
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

/**
 * The regions that check a monitor: names of CHECK_REGIONS (the service checks membership, which the schema cannot
 * know), each once.
 */
const regions = z
  .array(z.string().min(1).max(40))
  .min(1)
  .max(L.regionsMax)
  .superRefine((list, ctx) => {
    list.forEach((r, i) => {
      if (list.indexOf(r) !== i) ctx.addIssue({ code: 'custom', path: [i], message: `region ${r} is listed twice` });
    });
  });
/** How many of the monitor's regions must be failing to open an incident; at most their number (the service checks). */
const quorum = z.number().int().min(1).max(L.regionsMax);
const confirmAfterSeconds = z.number().int().min(L.confirmAfterMin).max(L.confirmAfterMax);
/** Monitors of the same workspace this one depends on, each once (the service checks the workspace and cycles). */
const dependsOn = z
  .array(uuidInputSchema)
  .max(L.dependsOnMax)
  .superRefine((list, ctx) => {
    list.forEach((id, i) => {
      if (list.indexOf(id) !== i) ctx.addIssue({ code: 'custom', path: [i], message: 'listed twice' });
    });
  });

/**
 * The uptime a monitor promises, in percent: 90 to 99.9999, at most 4 decimals (reports count its error budget in
 * ten-thousandths of a percent); null: none.
 */
const slaTarget = z
  .number()
  .min(90)
  .max(99.9999)
  .refine((v) => Math.abs(v * 10_000 - Math.round(v * 10_000)) < 1e-6, 'must have at most 4 decimals')
  .nullable();

/** Fields every monitor type accepts. */
const commonFields = {
  slaTarget: slaTarget.optional(),
  name,
  intervalSeconds: intervalSeconds.optional(),
  openThreshold: threshold.optional(),
  resolveThreshold: threshold.optional(),
  confirmAfterSeconds: confirmAfterSeconds.optional(),
  dependsOn: dependsOn.optional(),
  environment: environment.optional(),
  metadata: metadataSchema.optional(),
};
/** Fields of checks that make a connection (http, tcp and dns): probed from regions. */
const probeFields = {
  timeoutMs: timeoutMs.optional(),
  degradedAfterMs: degradedAfterMs.optional(),
  latencyThresholdMs: latencyThresholdMs.optional(),
  regions: regions.optional(),
  quorum: quorum.optional(),
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
  responseSchema: responseSchemaField.optional(),
  certificateExpiryDays: z
    .number()
    .int()
    .min(L.certificateExpiryDaysMin)
    .max(L.certificateExpiryDaysMax)
    .nullable()
    .optional(),
  /** Send a W3C `traceparent` header with each check (default true); its trace id is kept with the result. */
  sendTraceparent: z.boolean().optional(),
};
const dnsOnlyFields = {
  dnsRecordType: z.enum(DNS_RECORD_TYPES).optional(),
  dnsResolver: dnsResolverSchema.nullable().optional(),
  dnsExpected: z.array(z.string().trim().min(1).max(L.dnsExpectedValueMax)).max(L.dnsExpectedMax).optional(),
};

/** The kind a body without `type` is (older clients keep working): createMonitorSchema fills `type` in. */
export const createHttpMonitorSchema = z
  .object({
    // No `default`: generators (openapi-typescript) would then make the property required in a request.
    type: z.literal('http').optional(),
    target: httpTargetSchema,
    ...commonFields,
    ...probeFields,
    ...httpOnlyFields,
  })
  .strict();
export const createTcpMonitorSchema = z
  .object({ type: z.literal('tcp'), target: tcpTargetSchema, ...commonFields, ...probeFields })
  .strict();
export const createDnsMonitorSchema = z
  .object({ type: z.literal('dns'), target: dnsHostSchema, ...commonFields, ...probeFields, ...dnsOnlyFields })
  .strict();
const domainExpiryDays = z.number().int().min(L.domainExpiryDaysMin).max(L.domainExpiryDaysMax);
/** Domain monitors: one lookup a day by default, at least an hour apart (the cache holds an answer 6 h anyway). */
const domainIntervalSeconds = z.number().int().min(L.domainIntervalMin).max(L.intervalMax);
/**
 * Registration expiry over RDAP (spec section 12): checked from one region, without timeouts or latency rules of its
 * own (the lookup is shared by every monitor of the domain).
 */
export const createDomainMonitorSchema = z
  .object({
    type: z.literal('domain'),
    target: domainTargetSchema,
    ...commonFields,
    intervalSeconds: domainIntervalSeconds.optional(),
    domainExpiryDays: domainExpiryDays.optional(),
  })
  .strict();
/** A multi-step API check: its steps instead of a target (spec section 9). */
export const createApiMonitorSchema = z
  .object({ type: z.literal('api'), steps: apiStepsSchema, ...commonFields, ...probeFields })
  .strict();
export const createHeartbeatMonitorSchema = z
  .object({
    type: z.literal('heartbeat'),
    ...commonFields,
    graceSeconds: z.number().int().min(L.graceMin).max(L.graceMax).optional(),
    maxRunSeconds: maxRunSeconds.optional(),
    minRunSeconds: minRunSeconds.optional(),
    schedule: schedule.optional(),
    timezone: timezone.optional(),
  })
  .strict();

/** Each kind with its `type` always present (the http kind's is optional in a request). */
type WithType<T extends { type?: unknown }> = T extends unknown ? T & { type: NonNullable<T['type']> } : never;

/**
 * POST /monitors: discriminated on `type`; an omitted type means `http` (older clients keep working), so the http
 * option's `type` is optional and the answer always has one. `enabled` is refused on create: a monitor starts enabled.
 */
export const createMonitorSchema = z
  .discriminatedUnion(
    'type',
    [
      createHttpMonitorSchema,
      createTcpMonitorSchema,
      createHeartbeatMonitorSchema,
      createDnsMonitorSchema,
      createApiMonitorSchema,
      createDomainMonitorSchema,
    ],
    {
      // The absent `type` the http option admits is no value to suggest.
      error: (iss) =>
        iss.code === 'invalid_union' && iss.note === 'No matching discriminator'
          ? z.config().localeError?.({
              ...iss,
              options: (iss.options as unknown[]).filter((o) => o !== undefined),
            } as Parameters<NonNullable<ReturnType<typeof z.config>['localeError']>>[0])
          : undefined,
    },
  )
  .transform((m) => ({ ...m, type: m.type ?? 'http' }) as WithType<typeof m>);
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
    escalationPolicyId: uuidInputSchema.nullable().optional(),
    slaTarget: slaTarget.optional(),
    target: z.string().max(L.targetMax).optional(),
    intervalSeconds: intervalSeconds.optional(),
    openThreshold: threshold.optional(),
    resolveThreshold: threshold.optional(),
    confirmAfterSeconds: confirmAfterSeconds.optional(),
    dependsOn: dependsOn.optional(),
    environment: environment.optional(),
    timeoutMs: timeoutMs.optional(),
    degradedAfterMs: degradedAfterMs.nullable().optional(),
    latencyThresholdMs: latencyThresholdMs.nullable().optional(),
    regions: regions.optional(),
    // null: back to the default, a majority of the regions.
    quorum: quorum.nullable().optional(),
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
    responseSchema: responseSchemaField.nullable().optional(),
    certificateExpiryDays: httpOnlyFields.certificateExpiryDays,
    sendTraceparent: httpOnlyFields.sendTraceparent,
    domainExpiryDays: domainExpiryDays.optional(),
    // Replaces every step; a step's header value or body "<redacted>" keeps that of the stored step of the same name.
    steps: apiStepsSchema.optional(),
    ...dnsOnlyFields,
    graceSeconds: z.number().int().min(L.graceMin).max(L.graceMax).optional(),
    maxRunSeconds: maxRunSeconds.nullable().optional(),
    minRunSeconds: minRunSeconds.nullable().optional(),
    schedule: schedule.nullable().optional(),
    timezone: timezone.optional(),
    enabled: z.boolean().optional(),
    type: refusedOnUpdate('type').optional(),
    metadata: refusedOnUpdate('metadata').optional(),
  })
  .strict();
export type UpdateMonitorInput = z.infer<typeof updateMonitorSchema>;

/** The update fields each type accepts (the create schemas say the same for create). */
const EVERY_TYPE_UPDATE_FIELDS = [
  'name',
  'slaTarget',
  'escalationPolicyId',
  'intervalSeconds',
  'openThreshold',
  'resolveThreshold',
  'confirmAfterSeconds',
  'dependsOn',
  'environment',
  'enabled',
];
const probeUpdateFields = [...EVERY_TYPE_UPDATE_FIELDS, 'target', ...Object.keys(probeFields)];
export const UPDATE_FIELDS_BY_TYPE: Record<MonitorKind, ReadonlySet<string>> = {
  http: new Set([...probeUpdateFields, ...Object.keys(httpOnlyFields)]),
  tcp: new Set(probeUpdateFields),
  dns: new Set([...probeUpdateFields, ...Object.keys(dnsOnlyFields)]),
  heartbeat: new Set([
    ...EVERY_TYPE_UPDATE_FIELDS,
    'graceSeconds',
    'maxRunSeconds',
    'minRunSeconds',
    'schedule',
    'timezone',
  ]),
  api: new Set([...EVERY_TYPE_UPDATE_FIELDS, ...Object.keys(probeFields), 'steps']),
  domain: new Set([...EVERY_TYPE_UPDATE_FIELDS, 'target', 'domainExpiryDays']),
};

/**
 * The leaf certificate an https check saw (stored with the result and, the latest, on the monitor). Dates are ISO
 * 8601; `daysRemaining` is whole days from the check (the monitor record counts from the time it is read);
 * `fingerprint256` as OpenSSL prints it (`AB:CD:...`); subject and issuer as `CN=..., O=...`.
 */
export interface CertificateInfo {
  subject: string;
  issuer: string;
  validFrom: string;
  validTo: string;
  daysRemaining: number;
  fingerprint256: string;
}

const DAY_MS = 86_400_000;

/** Whole days from `now` until `validTo` (negative once expired). */
export function certificateDaysRemaining(validTo: string | Date, now: Date): number {
  return Math.floor((new Date(validTo).getTime() - now.getTime()) / DAY_MS);
}

/**
 * Whether something valid until `validTo` expires within `days` days of `now` (strictly: less than days x 24 h left,
 * so exactly when its whole days remaining fall below `days`): the rule of `certificateExpiryDays` and
 * `domainExpiryDays` alike.
 */
export function expiresWithinDays(validTo: string | Date, now: Date, days: number): boolean {
  return new Date(validTo).getTime() - now.getTime() < days * DAY_MS;
}

/**
 * A domain's registration as its registry's RDAP server published it (stored on the monitor by its latest lookup):
 * `expiresAt` (ISO 8601) null when the registry publishes no expiry, `registrar` the registrar's name when given.
 */
export interface DomainInfo {
  expiresAt: string | null;
  registrar: string | null;
}
