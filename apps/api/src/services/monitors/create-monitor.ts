import {
  DEFAULT_CERTIFICATE_EXPIRY_DAYS,
  DEFAULT_CONFIRM_AFTER_SECONDS,
  DEFAULT_TIMEOUT_MS,
  followCommittedSchedule,
  maintenanceUntilByComponent,
  randomSecret,
  type CheckScheduler,
  type Config,
  type PrismaClient,
  type SsrfGuard,
} from '@statusvane/shared';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { monitorRecordSelect, toMonitorRecord, type MonitorRecord } from './monitor-record.js';
import { checkDependencies } from './monitor-dependencies.js';
import { sealSecrets } from './monitor-rules.js';
import { validateCreateInput } from './monitor-validation.js';

export interface MonitorServiceDeps {
  prisma: PrismaClient;
  config: Config;
  scheduler: CheckScheduler;
  guard: SsrfGuard;
}

// No maintenance window names this id: the lookup under it finds exactly the whole-workspace windows.
const NO_COMPONENT = '00000000-0000-0000-0000-000000000000';

/**
 * Creates a monitor and its public component in one transaction, and its schedulers before that transaction
 * commits: if Redis refuses, nothing is written (a commit failure after scheduling leaves only a scheduler for a
 * missing monitor, which workers skip and the reconciler removes). Then queues the first check at once.
 */
export async function createMonitor(
  deps: MonitorServiceDeps,
  { ctx, input }: { ctx: ServiceContext; input: unknown },
): Promise<MonitorRecord> {
  assertCan(ctx.role, 'monitors:write');
  const m = await validateCreateInput(deps.guard, deps.config.checkRegions, input);
  const http = m.type === 'http' ? m : null;
  const dns = m.type === 'dns' ? m : null;
  // The record is complete before the commit, so that `ctx.inTransaction` can store it. Only a whole-workspace window
  // can cover a component that does not exist yet, so its maintenance state can be read before the transaction
  // (read inside it, on another pool connection, concurrent creates could each hold one and wait for a second).
  const maintenanceUntil =
    (await maintenanceUntilByComponent(deps.prisma, ctx.workspace.id, [NO_COMPONENT])).get(NO_COMPONENT) ?? null;

  const record = await deps.prisma.$transaction(async (tx) => {
    await checkDependencies(tx, { workspaceId: ctx.workspace.id, monitorId: null, dependsOn: m.dependsOn ?? [] });
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
              ...sealSecrets(deps.config, http.headers, http.body),
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
      },
      select: monitorRecordSelect,
    });
    const record = toMonitorRecord(created, {
      publicBaseUrl: deps.config.publicBaseUrl,
      checkRegions: deps.config.checkRegions,
      maintenanceUntil,
      now: ctx.now,
    });
    // Before Redis: a hook that refuses (an Idempotency-Key taken over by a retry) leaves no scheduler behind.
    await ctx.inTransaction?.(tx, record);
    await deps.scheduler.schedule(created);
    return record;
  });
  // Should Redis fail right here, the monitor is scheduled (in the transaction) and the reconciler has it in a round.
  await followCommittedSchedule(deps.scheduler, deps.prisma, record.id).catch(() => undefined);
  // The immediate first check is queued only after the commit: queued earlier, a fast worker could read the
  // monitor before it exists and skip it. Should Redis fail right here, the first scheduled slot still comes.
  await deps.scheduler.runNow(record).catch(() => undefined);
  return record;
}
