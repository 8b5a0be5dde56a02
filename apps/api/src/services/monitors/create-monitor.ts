import { randomUUID } from 'node:crypto';
import {
  hotTransaction,
  maintenanceCoverage,
  eventInsert,
  type CheckScheduler,
  type Config,
  type CreateMonitorInput,
  type Logger,
  type PrismaClient,
  type SsrfGuard,
} from '@statusvane/shared';
import { assertCan } from '../auth/permissions.js';
import { writeLast, type ServiceContext } from '../context.js';
import { auditInsert, changesBetween } from '../audit/record-write.js';
import { monitorSettings, toMonitorRecord, type MonitorRecord } from './monitor-record.js';
import { checkDependencies } from './monitor-dependencies.js';
import { monitorCreateData } from './monitor-data.js';
import { insertMonitorWithComponent } from './monitor-insert.js';
import { checkNow, followSchedule } from './monitor-schedule.js';
import { lockSecrets } from './monitor-secrets.js';

export interface MonitorServiceDeps {
  prisma: PrismaClient;
  config: Config;
  scheduler: CheckScheduler;
  guard: SsrfGuard;
  logger: Logger;
}

/**
 * Creates a monitor and its public component in one transaction, and its schedulers before that transaction
 * commits: if Redis refuses, nothing is written (a commit failure after scheduling leaves only a scheduler for a
 * missing monitor, which workers skip and the reconciler removes). Then queues the first check at once. `input` has
 * passed createMonitorChecks (monitor-validation.ts); `dependsOn` is judged again in the write.
 */
export async function createMonitor(
  deps: MonitorServiceDeps,
  { ctx, input: m }: { ctx: ServiceContext; input: CreateMonitorInput },
): Promise<MonitorRecord> {
  assertCan(ctx.role, 'monitors:write');
  // A hot transaction (docs/adr/0021-hot-statements-on-the-pool.md): the same statements as through Prisma's
  // interactive transaction, whose handling cost more API CPU than the statements' round trips.
  const { record, created } = await hotTransaction(deps.prisma, async (tx) => {
    await checkDependencies(tx, { workspaceId: ctx.workspace.id, monitorId: null, dependsOn: m.dependsOn ?? [] });
    const data = monitorCreateData(deps.config, { workspaceId: ctx.workspace.id, componentId: randomUUID() }, m);
    await lockSecrets(tx, ctx.workspace.id, (data.secretRefs ?? []) as string[]);
    // The record is complete before the commit, so that `ctx.inTransaction` can store it: its maintenance state
    // comes with the insert (only a whole-workspace window can cover a component created in the same statement).
    const { row: created, workspaceWindows } = await insertMonitorWithComponent(tx, data, ctx.now);
    const record = toMonitorRecord(created, {
      publicBaseUrl: deps.config.publicBaseUrl,
      checkRegions: deps.config.checkRegions,
      maintenanceUntil:
        maintenanceCoverage(workspaceWindows, [created.componentId], ctx.now).get(created.componentId) ?? null,
      now: ctx.now,
    });
    // The event, the audit event and the stored answer in one round trip. Before Redis: a hook that refuses (an
    // Idempotency-Key taken over by a retry) leaves no scheduler behind.
    await writeLast(tx, ctx, record, [
      eventInsert({
        workspaceId: ctx.workspace.id,
        type: 'monitor.created',
        subject: `monitors/${created.id}`,
        data: { monitor: record },
      }),
      auditInsert(ctx, {
        resourceType: 'monitor',
        resourceId: created.id,
        action: 'created',
        changes: changesBetween(null, monitorSettings(created, deps.config)),
      }),
    ]);
    await deps.scheduler.schedule(created);
    return { record, created };
  });
  // Both after the commit, side by side (one Redis round trip). Should Redis fail right here, the monitor is scheduled
  // (in the transaction) and the reconciler has it in a round. The immediate first check is queued only after the
  // commit: queued earlier, a fast worker could read the monitor before it exists and skip it; should Redis fail, the
  // first scheduled slot still comes.
  await Promise.all([followSchedule(deps, created, 'monitor created'), checkNow(deps, record, 'monitor created')]);
  return record;
}
