import { createMonitorSchema, parseOrThrow, randomSecret, ValidationError, type CheckScheduler, type Config, type PrismaClient, type SsrfGuard } from '@statusvane/shared';
import type { RequestContext } from '../auth/context.js';
import { assertCan } from '../auth/permissions.js';
import { assertTargetAllowed, crossFieldIssues, sealSecrets } from './monitor-rules.js';
import { toRecords } from './get-monitor.js';
import { monitorRecordSelect, type MonitorRecord } from './monitor-record.js';

export interface MonitorServiceDeps {
  prisma: PrismaClient;
  config: Config;
  scheduler: CheckScheduler;
  guard: SsrfGuard;
}

/**
 * Creates a monitor and its public component in one transaction, and its schedulers before that transaction
 * commits: if Redis refuses, nothing is written (a commit failure after scheduling leaves only a scheduler for a
 * missing monitor, which workers skip and the reconciler removes). Then queues the first check at once.
 */
export async function createMonitor(deps: MonitorServiceDeps, { ctx, input }: { ctx: RequestContext; input: unknown }): Promise<MonitorRecord> {
  assertCan(ctx.role, 'monitors:write');
  const m = parseOrThrow(createMonitorSchema, input, 'monitor');
  if (m.type !== 'heartbeat') await assertTargetAllowed(deps.guard, m.type, m.target);

  const http = m.type === 'http' ? m : null;
  const issues = crossFieldIssues({
    method: http?.method ?? 'GET',
    hasBody: http?.body !== undefined,
    degradedAfterMs: m.type === 'heartbeat' ? null : (m.degradedAfterMs ?? null),
    latencyThresholdMs: m.type === 'heartbeat' ? null : (m.latencyThresholdMs ?? null),
  });
  if (issues.length) throw new ValidationError(`Invalid monitor: ${issues.map((i) => i.path).join(', ')}`, issues);

  const row = await deps.prisma.$transaction(async (tx) => {
    const component = await tx.component.create({ data: { workspaceId: ctx.workspace.id, name: m.name } });
    const created = await tx.monitor.create({
      data: {
        workspaceId: ctx.workspace.id,
        componentId: component.id,
        name: m.name,
        type: m.type,
        target: m.type === 'heartbeat' ? null : m.target,
        intervalSeconds: m.intervalSeconds ?? 60,
        openThreshold: m.openThreshold ?? 2,
        resolveThreshold: m.resolveThreshold ?? 2,
        environment: m.environment ?? 'production',
        metadata: m.metadata ?? {},
        ...(m.type !== 'heartbeat'
          ? { timeoutMs: m.timeoutMs ?? 10_000, degradedAfterMs: m.degradedAfterMs ?? null, latencyThresholdMs: m.latencyThresholdMs ?? null }
          : { graceSeconds: m.graceSeconds ?? 60, pingSecret: randomSecret(24) }),
        ...(http
          ? {
              method: http.method ?? 'GET',
              expectedStatusCodes: http.expectedStatusCodes ?? [],
              keyword: http.keyword ?? null,
              keywordAbsent: http.keywordAbsent ?? null,
              contentType: http.contentType ?? 'application/json',
              ...(http.jsonAssertion ? { jsonAssertion: http.jsonAssertion } : {}),
              ...sealSecrets(deps.config, http.headers, http.body),
            }
          : {}),
      },
      select: monitorRecordSelect,
    });
    await deps.scheduler.schedule(created);
    return created;
  });
  // The immediate first check is queued only after the commit: queued earlier, a fast worker could read the
  // monitor before it exists and skip it. Should Redis fail right here, the first scheduled slot still comes.
  await deps.scheduler.runNow(row).catch(() => undefined);
  // A whole-workspace maintenance window already covers the new monitor.
  return (await toRecords(deps.prisma, ctx, [row], deps.config.publicBaseUrl))[0]!;
}
