import {
  secretKeyId,
  tryDecryptSecret,
  UPDATE_FIELDS_BY_TYPE,
  type ApiStepInput,
  type Config,
  type Issue,
  type Prisma,
  type StoredApiStep,
} from '@statusvane/shared';
import { monitorDefaults } from '../monitors/monitor-data.js';
import { keepStoredStepSecrets, mentionsRedacted, openStoredSteps } from '../monitors/monitor-secrets.js';
import { monitorRecordSelect, OBSERVED_COLUMNS } from '../monitors/monitor-record.js';
import { REDACTED } from '../audit/record-write.js';
import type { DesiredMonitor, View } from './config-schema.js';
import { isUnreadable, UNREADABLE, UnreadableSecret, unreadableIssue } from './unreadable.js';

/** Not document fields: pausing is operational, and the policy is named by its ref (`escalationPolicy`). */
const NOT_IN_DOCUMENTS = new Set(['enabled', 'escalationPolicyId']);
/**
 * The fields a document states per type: those a PATCH of that type takes (UPDATE_FIELDS_BY_TYPE, the schema's own
 * list), but `enabled` and `escalationPolicyId`, plus `type` and `metadata` (which only a document changes).
 */
const FIELDS: Record<string, string[]> = Object.fromEntries(
  Object.entries(UPDATE_FIELDS_BY_TYPE).map(([type, fields]) => [
    type,
    // `name` and `type` first: the order fields are shown in plans and exports.
    ['name', 'type', ...[...fields].filter((f) => f !== 'name' && !NOT_IN_DOCUMENTS.has(f)), 'metadata'],
  ]),
);

/**
 * What a create stores for a field the document leaves out (monitor-data.ts: for the monitor's type), and the
 * write-only secrets' "none".
 */
const defaultsOf = (view: View): View => ({
  ...monitorDefaults(view.type),
  headers: {},
  body: null,
  jsonAssertion: null,
  steps: null,
});

/** Fields whose values are secrets: compared by value, shown as "<redacted>" (steps: their headers and bodies). */
export const MONITOR_SECRET_FIELDS: ReadonlySet<string> = new Set(['headers', 'body', 'steps']);
/** What a document may say for a stored secret it keeps. */
const PLACEHOLDERS = [REDACTED, UNREADABLE];

/** The fields a monitor of this kind has; a heartbeat on a cron schedule has no interval of its own to manage. */
function fieldsOf(view: View): string[] {
  const fields = FIELDS[view.type as string]!;
  return view.type === 'heartbeat' && view.schedule !== null ? fields.filter((f) => f !== 'intervalSeconds') : fields;
}

/** A monitor's record columns, and its sealed secrets: the document's view of it is read from these. */
export const configMonitorSelect = {
  ...monitorRecordSelect,
  headersEnc: true,
  encKeyId: true,
} satisfies Prisma.MonitorSelect;
export type ConfigMonitorRow = Prisma.MonitorGetPayload<{ select: typeof configMonitorSelect }>;

/**
 * What a plan's id holds of a stored monitor: every column read but what checks and pings write (OBSERVED_COLUMNS),
 * so a check between plan and apply is no conflict, and the ping secret (its clear value stays out of the id; a new
 * one moves `version`). Header and body secrets enter as their ciphertext.
 */
export function monitorFingerprint(row: ConfigMonitorRow): Partial<ConfigMonitorRow> {
  const kept: Partial<ConfigMonitorRow> = { ...row };
  for (const column of [...OBSERVED_COLUMNS, 'pingSecret'] as const) delete kept[column];
  return kept;
}

/** A stored secret decrypted (and parsed), or UnreadableSecret when no configured key opens it. */
function openStored<T>(
  stored: string,
  legacyKeyId: string | null,
  keyring: Config['encryption'],
  parse: (clear: string) => T,
): T | UnreadableSecret {
  const clear = tryDecryptSecret(stored, legacyKeyId, keyring);
  return clear === null ? new UnreadableSecret(secretKeyId(stored, legacyKeyId)) : parse(clear);
}

/**
 * The stored monitor as the document sees it, secrets decrypted (in memory only, for comparison); a secret no
 * configured key opens is an UnreadableSecret (shown `"<unreadable>"`), so that reading never fails.
 */
export function storedMonitorView(
  row: ConfigMonitorRow,
  keyring: Config['encryption'],
  policyRefs: Map<string, string>,
): View {
  const all: View = {
    name: row.name,
    type: row.type,
    intervalSeconds: row.intervalSeconds,
    openThreshold: row.openThreshold,
    resolveThreshold: row.resolveThreshold,
    confirmAfterSeconds: row.confirmAfterSeconds,
    dependsOn: row.dependsOn,
    environment: row.environment,
    metadata: row.metadata,
    slaTarget: row.slaTarget,
    target: row.target,
    timeoutMs: row.timeoutMs,
    degradedAfterMs: row.degradedAfterMs,
    latencyThresholdMs: row.latencyThresholdMs,
    regions: row.regions,
    quorum: row.quorum,
    method: row.method,
    expectedStatusCodes: row.expectedStatusCodes,
    keyword: row.keyword,
    keywordAbsent: row.keywordAbsent,
    headers: row.headersEnc ? openStored(row.headersEnc, row.encKeyId, keyring, (c) => JSON.parse(c) as unknown) : {},
    body: row.bodyEnc ? openStored(row.bodyEnc, row.encKeyId, keyring, (c) => c) : null,
    contentType: row.contentType,
    jsonAssertion: row.jsonAssertion ?? null,
    responseSchema: row.responseSchema ?? null,
    steps: row.type === 'api' ? storedSteps(row, keyring) : null,
    certificateExpiryDays: row.certificateExpiryDays,
    domainExpiryDays: row.domainExpiryDays,
    sendTraceparent: row.sendTraceparent,
    dnsRecordType: row.dnsRecordType ?? 'A',
    dnsResolver: row.dnsResolver,
    dnsExpected: row.dnsExpected,
    graceSeconds: row.graceSeconds,
    maxRunSeconds: row.maxRunSeconds,
    minRunSeconds: row.minRunSeconds,
    schedule: row.schedule,
    timezone: row.timezone,
  };
  const view = pick(all, fieldsOf(all));
  // A policy the document does not manage has no ref: it shows as unmanagedPolicy(id), which no ref equals, so that
  // `escalationPolicy: null` (or a ref) in a document is a change; the export leaves it out.
  view.escalationPolicy =
    row.escalationPolicyId === null
      ? null
      : (policyRefs.get(row.escalationPolicyId) ?? unmanagedPolicy(row.escalationPolicyId));
  return view;
}

/**
 * An api monitor's steps whole (headers and bodies decrypted in memory, for comparison); when no configured key opens
 * them, each header value and body is an UnreadableSecret (shown `"<unreadable>"`), so that reading never fails.
 */
function storedSteps(row: ConfigMonitorRow, keyring: Config['encryption']): unknown[] {
  const opened = openStoredSteps(row, keyring);
  if (opened) return opened;
  const unreadable = new UnreadableSecret(row.stepSecretsEnc ? secretKeyId(row.stepSecretsEnc) : null);
  return ((row.steps ?? []) as StoredApiStep[]).map(({ headerNames, hasBody, ...rest }) => ({
    ...rest,
    ...(headerNames.length ? { headers: Object.fromEntries(headerNames.map((n) => [n, unreadable])) } : {}),
    ...(hasBody ? { body: unreadable } : {}),
  }));
}

/** A monitor's policy that no ref names, as plans show it (a ref has no space or parenthesis). */
const unmanagedPolicy = (id: string) => `(unmanaged policy ${id})`;
const isRef = (v: unknown): v is string => typeof v === 'string' && !v.startsWith('(');

function pick(from: View, fields: string[]): View {
  const defaults = defaultsOf(from);
  return Object.fromEntries(fields.map((f) => [f, from[f] === undefined ? (defaults[f] ?? null) : from[f]]));
}

/**
 * The monitor the document asks for, defaults filled in as a create fills them. `"<redacted>"` (what GET /config
 * shows for a secret) stands for the stored value: a header value, or the body; so does `"<unreadable>"` (what it
 * shows for a secret it cannot decrypt) for the whole headers or the body. A stored value that cannot be decrypted
 * cannot be kept: a 400 at its path. `escalationPolicy` is compared only when the document gives it.
 */
export function desiredMonitorView(d: DesiredMonitor, stored: View | null): { view: View; issues: Issue[] } {
  const m = d.input as Record<string, unknown>;
  const issues: Issue[] = [];
  const given: View = { ...m };
  // "" is no keyword (docs/decisions.md): stored as null.
  if (given.keyword === '') given.keyword = null;
  if (given.keywordAbsent === '') given.keywordAbsent = null;
  const at = (field: string) => `monitors[${d.index}].${field}`;
  const storedHeaders = stored?.headers ?? {};
  if (given.headers === UNREADABLE) {
    if (isUnreadable(storedHeaders)) issues.push(unreadableIssue(at('headers'), UNREADABLE, 'headers', storedHeaders));
    else if (Object.keys(storedHeaders).length === 0)
      issues.push({ path: at('headers'), message: `is "${UNREADABLE}" but the monitor has no stored headers` });
    given.headers = storedHeaders;
  } else if (given.headers && typeof given.headers === 'object') {
    const byLower = new Map(
      isUnreadable(storedHeaders)
        ? []
        : Object.entries(storedHeaders as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v]),
    );
    given.headers = Object.fromEntries(
      Object.entries(given.headers as Record<string, string>).map(([name, value]) => {
        if (value !== REDACTED) return [name, value];
        const kept = byLower.get(name.toLowerCase());
        if (isUnreadable(storedHeaders))
          issues.push(unreadableIssue(at(`headers.${name}`), REDACTED, 'headers', storedHeaders));
        else if (kept === undefined)
          issues.push({
            path: at(`headers.${name}`),
            message: `is "${REDACTED}" but the monitor has no stored ${name} header`,
          });
        return [name, kept ?? value];
      }),
    );
  }
  if (given.body === REDACTED || given.body === UNREADABLE) {
    const said = given.body;
    if (isUnreadable(stored?.body)) issues.push(unreadableIssue(at('body'), said, 'body', stored.body));
    else if (typeof stored?.body === 'string') given.body = stored.body;
    else issues.push({ path: at('body'), message: `is "${said}" but the monitor has no stored body` });
  }
  if (Array.isArray(given.steps) && mentionsRedacted(given.steps as ApiStepInput[], PLACEHOLDERS)) {
    const storedSteps = (stored?.steps ?? null) as Array<{ headers?: object; body?: unknown }> | null;
    const unreadable = storedSteps?.some(
      (s) => isUnreadable(s.body) || Object.values(s.headers ?? {}).some(isUnreadable),
    );
    const kept = keepStoredStepSecrets(
      given.steps as ApiStepInput[],
      unreadable ? null : ((storedSteps ?? []) as ApiStepInput[]),
      at('steps'),
      PLACEHOLDERS,
    );
    issues.push(...kept.issues);
    given.steps = kept.steps;
  }
  const view = pick(given, fieldsOf({ ...defaultsOf(given), ...given }));
  if (d.escalationPolicy !== undefined) view.escalationPolicy = d.escalationPolicy;
  return { view, issues };
}

/** A value as plans and GET /config show it: secrets redacted (header names stay), unreadable ones `"<unreadable>"`. */
export function shownValue(field: string, value: unknown): unknown {
  if (isUnreadable(value)) return UNREADABLE;
  if (!MONITOR_SECRET_FIELDS.has(field) || value === null || value === undefined) return value ?? null;
  if (field === 'headers') return redactedHeaders(value as Record<string, unknown>);
  if (field === 'steps')
    return (value as Array<Record<string, unknown>>).map((step) => ({
      ...step,
      ...(step.headers ? { headers: redactedHeaders(step.headers as Record<string, unknown>) } : {}),
      ...(step.body !== undefined ? { body: isUnreadable(step.body) ? UNREADABLE : REDACTED } : {}),
    }));
  return REDACTED;
}

/** Header names kept, values `"<redacted>"` (or `"<unreadable>"`). */
const redactedHeaders = (headers: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(headers).map(([name, v]) => [name, isUnreadable(v) ? UNREADABLE : REDACTED]));

/** The document entry of a stored monitor: defaults left out, secrets redacted. */
export function exportedMonitor(ref: string, view: View): View {
  const entry: View = { ref };
  const defaults = defaultsOf(view);
  for (const [field, value] of Object.entries(view)) {
    const always = field === 'name' || field === 'type' || field === 'target';
    if (!always && field !== 'escalationPolicy' && sameValue(value, defaults[field] ?? null)) continue;
    if (field === 'escalationPolicy' && !isRef(value)) continue;
    entry[field] = shownValue(field, value);
  }
  return entry;
}

/** Key order does not matter (headers, metadata, a JSON assertion); array order does. */
export function stableJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}

export const sameValue = (a: unknown, b: unknown) => stableJson(a ?? null) === stableJson(b ?? null);
