import {
  DEFAULT_CERTIFICATE_EXPIRY_DAYS,
  DEFAULT_CONFIRM_AFTER_SECONDS,
  DEFAULT_TIMEOUT_MS,
  Prisma,
  randomSecret,
  type Config,
  type CreateMonitorInput,
  type UpdateMonitorInput,
} from '@statusvane/shared';
import { sealSecrets } from './monitor-rules.js';

/**
 * The row a create stores for a parsed monitor (`POST /monitors`, `config/apply`): every default the spec gives
 * filled in, secrets sealed, a heartbeat's ping secret drawn.
 */
export function monitorCreateData(
  config: Config,
  where: { workspaceId: string; componentId: string; id?: string },
  m: CreateMonitorInput,
): Prisma.MonitorUncheckedCreateInput {
  const http = m.type === 'http' ? m : null;
  const dns = m.type === 'dns' ? m : null;
  return {
    ...(where.id ? { id: where.id } : {}),
    workspaceId: where.workspaceId,
    componentId: where.componentId,
    name: m.name,
    type: m.type,
    target: m.type === 'heartbeat' ? null : m.target,
    intervalSeconds: m.intervalSeconds ?? 60,
    openThreshold: m.openThreshold ?? 2,
    resolveThreshold: m.resolveThreshold ?? 2,
    confirmAfterSeconds: m.confirmAfterSeconds ?? DEFAULT_CONFIRM_AFTER_SECONDS,
    dependsOn: m.dependsOn ?? [],
    environment: m.environment ?? 'production',
    metadata: m.metadata ?? {},
    ...(m.type !== 'heartbeat'
      ? {
          timeoutMs: m.timeoutMs ?? DEFAULT_TIMEOUT_MS,
          degradedAfterMs: m.degradedAfterMs ?? null,
          latencyThresholdMs: m.latencyThresholdMs ?? null,
          regions: m.regions ?? [],
          quorum: m.quorum ?? null,
        }
      : {
          graceSeconds: m.graceSeconds ?? 60,
          maxRunSeconds: m.maxRunSeconds ?? null,
          schedule: m.schedule ?? null,
          timezone: m.timezone ?? 'UTC',
          pingSecret: randomSecret(24),
        }),
    ...(http
      ? {
          method: http.method ?? 'GET',
          expectedStatusCodes: http.expectedStatusCodes ?? [],
          // "" is no keyword (docs/decisions.md).
          keyword: http.keyword || null,
          keywordAbsent: http.keywordAbsent || null,
          contentType: http.contentType ?? 'application/json',
          ...(http.jsonAssertion ? { jsonAssertion: http.jsonAssertion } : {}),
          ...sealSecrets(config, http.headers, http.body),
          certificateExpiryDays:
            http.certificateExpiryDays === undefined ? DEFAULT_CERTIFICATE_EXPIRY_DAYS : http.certificateExpiryDays,
        }
      : { certificateExpiryDays: null }),
    ...(dns
      ? {
          dnsRecordType: dns.dnsRecordType ?? 'A',
          dnsResolver: dns.dnsResolver ?? null,
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
  current: { type: string; target: string | null },
  u: Omit<UpdateMonitorInput, 'type' | 'metadata'>,
): Prisma.MonitorUpdateInput {
  const { headers, body, jsonAssertion, keyword, keywordAbsent, escalationPolicyId, ...plain } = u;
  const data: Prisma.MonitorUpdateInput = {
    ...plain,
    // "" is no keyword, like null (docs/decisions.md).
    ...(keyword !== undefined ? { keyword: keyword || null } : {}),
    ...(keywordAbsent !== undefined ? { keywordAbsent: keywordAbsent || null } : {}),
    ...(jsonAssertion !== undefined ? { jsonAssertion: jsonAssertion ?? Prisma.DbNull } : {}),
    ...sealSecrets(config, headers, body),
    // The certificate shown is the one of the target checked: a new target has none until its first https check.
    ...(u.target !== undefined && u.target !== current.target ? { certificate: Prisma.DbNull } : {}),
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
