import {
  DEFAULT_CERTIFICATE_EXPIRY_DAYS,
  DEFAULT_CONFIRM_AFTER_SECONDS,
  DEFAULT_DOMAIN_EXPIRY_DAYS,
  DEFAULT_DOMAIN_INTERVAL_SECONDS,
  DEFAULT_TIMEOUT_MS,
  Prisma,
  randomSecret,
  sealSteps,
  type Config,
  type CreateMonitorInput,
  type UpdateMonitorInput,
} from '@statusvane/shared';
import { sealSecrets } from './monitor-rules.js';
import { httpSecretsAfter, secretRefsOf } from './monitor-secrets.js';

/**
 * What a create stores for a field the body leaves out (docs/decisions.md, "Monitors"): the one table that
 * monitorCreateData fills in from and that config plans compare a document's omitted fields with.
 */
export const MONITOR_DEFAULTS = {
  intervalSeconds: 60,
  openThreshold: 2,
  resolveThreshold: 2,
  confirmAfterSeconds: DEFAULT_CONFIRM_AFTER_SECONDS,
  dependsOn: [] as string[],
  environment: 'production',
  metadata: {} as Record<string, string>,
  slaTarget: null,
  timeoutMs: DEFAULT_TIMEOUT_MS,
  degradedAfterMs: null,
  latencyThresholdMs: null,
  regions: [] as string[],
  quorum: null,
  graceSeconds: 60,
  maxRunSeconds: null,
  minRunSeconds: null,
  schedule: null,
  timezone: 'UTC',
  method: 'GET',
  expectedStatusCodes: [] as number[],
  keyword: null,
  keywordAbsent: null,
  contentType: 'application/json',
  certificateExpiryDays: DEFAULT_CERTIFICATE_EXPIRY_DAYS,
  dnsRecordType: 'A',
  dnsResolver: null,
  dnsExpected: [] as string[],
  responseSchema: null,
  domainExpiryDays: DEFAULT_DOMAIN_EXPIRY_DAYS,
  sendTraceparent: true,
} as const;
const D = MONITOR_DEFAULTS;

/** MONITOR_DEFAULTS as they apply to one type: a domain is looked up once a day unless told otherwise. */
export function monitorDefaults(type: unknown): Record<string, unknown> {
  return type === 'domain'
    ? { ...MONITOR_DEFAULTS, intervalSeconds: DEFAULT_DOMAIN_INTERVAL_SECONDS }
    : MONITOR_DEFAULTS;
}

/**
 * The row a create stores for a parsed monitor (`POST /monitors`, `config/apply`): every default filled in
 * (MONITOR_DEFAULTS), secrets sealed, a heartbeat's ping secret drawn.
 */
export function monitorCreateData(
  config: Config,
  where: { workspaceId: string; componentId: string; id?: string },
  m: CreateMonitorInput,
): Prisma.MonitorUncheckedCreateInput {
  const http = m.type === 'http' ? m : null;
  const dns = m.type === 'dns' ? m : null;
  const api = m.type === 'api' ? m : null;
  const domain = m.type === 'domain' ? m : null;
  return {
    ...(where.id ? { id: where.id } : {}),
    workspaceId: where.workspaceId,
    componentId: where.componentId,
    name: m.name,
    type: m.type,
    target: m.type === 'heartbeat' || m.type === 'api' ? null : m.target,
    intervalSeconds: m.intervalSeconds ?? (monitorDefaults(m.type).intervalSeconds as number),
    openThreshold: m.openThreshold ?? D.openThreshold,
    resolveThreshold: m.resolveThreshold ?? D.resolveThreshold,
    confirmAfterSeconds: m.confirmAfterSeconds ?? D.confirmAfterSeconds,
    dependsOn: m.dependsOn ?? [],
    environment: m.environment ?? D.environment,
    metadata: m.metadata ?? {},
    slaTarget: m.slaTarget ?? D.slaTarget,
    ...(domain ? { domainExpiryDays: domain.domainExpiryDays ?? D.domainExpiryDays } : {}),
    ...(m.type === 'domain'
      ? {}
      : m.type !== 'heartbeat'
        ? {
            timeoutMs: m.timeoutMs ?? D.timeoutMs,
            degradedAfterMs: m.degradedAfterMs ?? D.degradedAfterMs,
            latencyThresholdMs: m.latencyThresholdMs ?? D.latencyThresholdMs,
            regions: m.regions ?? [],
            quorum: m.quorum ?? D.quorum,
          }
        : {
            graceSeconds: m.graceSeconds ?? D.graceSeconds,
            maxRunSeconds: m.maxRunSeconds ?? D.maxRunSeconds,
            minRunSeconds: m.minRunSeconds ?? D.minRunSeconds,
            schedule: m.schedule ?? D.schedule,
            timezone: m.timezone ?? D.timezone,
            pingSecret: randomSecret(24),
          }),
    ...(http
      ? {
          method: http.method ?? D.method,
          expectedStatusCodes: http.expectedStatusCodes ?? [],
          // "" is no keyword (docs/decisions.md).
          keyword: http.keyword || D.keyword,
          keywordAbsent: http.keywordAbsent || D.keywordAbsent,
          contentType: http.contentType ?? D.contentType,
          ...(http.jsonAssertion ? { jsonAssertion: http.jsonAssertion } : {}),
          ...(http.responseSchema ? { responseSchema: http.responseSchema as Prisma.InputJsonValue } : {}),
          ...sealSecrets(config, http.headers, http.body),
          secretRefs: secretRefsOf(http),
          certificateExpiryDays:
            http.certificateExpiryDays === undefined ? D.certificateExpiryDays : http.certificateExpiryDays,
          sendTraceparent: http.sendTraceparent ?? D.sendTraceparent,
        }
      : { certificateExpiryDays: null }),
    ...(api ? apiStepData(config, api.steps) : {}),
    ...(dns
      ? {
          dnsRecordType: dns.dnsRecordType ?? D.dnsRecordType,
          dnsResolver: dns.dnsResolver ?? D.dnsResolver,
          dnsExpected: dns.dnsExpected ?? [],
        }
      : {}),
  };
}

/**
 * The row changes of an update (`PATCH /monitors/{id}`, `config/apply`): only the given fields, secrets sealed, and
 * what follows from them (a new target drops the stored certificate; an interval takes a heartbeat off its cron
 * schedule; a new name renames the public component).
 */
export function monitorUpdateData(
  config: Config,
  current: {
    type: string;
    target: string | null;
    headersEnc: string | null;
    bodyEnc: string | null;
    encKeyId: string | null;
  },
  u: Omit<UpdateMonitorInput, 'type' | 'metadata'>,
): Prisma.MonitorUpdateInput {
  const { headers, body, jsonAssertion, responseSchema, steps, keyword, keywordAbsent, escalationPolicyId, ...plain } =
    u;
  // The secrets the monitor names follow its headers and body (http) or steps (api); a stored value that cannot be
  // decrypted keeps the names it had.
  const http =
    headers !== undefined || body !== undefined
      ? httpSecretsAfter({ headers, body }, current, config.encryption)
      : null;
  const data: Prisma.MonitorUpdateInput = {
    ...plain,
    ...(steps !== undefined ? apiStepData(config, steps) : {}),
    ...(http ? { secretRefs: secretRefsOf(http) } : {}),
    ...(responseSchema !== undefined
      ? { responseSchema: responseSchema === null ? Prisma.DbNull : (responseSchema as Prisma.InputJsonValue) }
      : {}),
    // "" is no keyword, like null (docs/decisions.md).
    ...(keyword !== undefined ? { keyword: keyword || null } : {}),
    ...(keywordAbsent !== undefined ? { keywordAbsent: keywordAbsent || null } : {}),
    ...(jsonAssertion !== undefined ? { jsonAssertion: jsonAssertion ?? Prisma.DbNull } : {}),
    ...sealSecrets(config, headers, body),
    // The certificate shown is the one of the target checked: a new target has none until its first https check.
    // So is a domain's registration.
    ...(u.target !== undefined && u.target !== current.target
      ? { certificate: Prisma.DbNull, domain: Prisma.DbNull }
      : {}),
    // A heartbeat given an interval leaves its cron schedule (the schema refuses both in one body).
    ...(u.intervalSeconds !== undefined && current.type === 'heartbeat' && u.schedule === undefined
      ? { schedule: null }
      : {}),
  };
  // The component takes the name too: a change of the component record, so its version grows (the monitor's event
  // records the rename).
  if (u.name !== undefined) data.component = { update: { name: u.name, version: { increment: 1 } } };
  if (escalationPolicyId !== undefined)
    data.escalationPolicy = escalationPolicyId ? { connect: { id: escalationPolicyId } } : { disconnect: true };
  return data;
}

/** An api monitor's step columns: the public part, the sealed headers and bodies, and the secrets they name. */
function apiStepData(config: Config, steps: NonNullable<UpdateMonitorInput['steps']>) {
  const sealed = sealSteps(steps, config.encryption.current);
  return {
    steps: sealed.steps as unknown as Prisma.InputJsonValue,
    stepSecretsEnc: sealed.stepSecretsEnc,
    secretRefs: secretRefsOf({ steps }),
  };
}
