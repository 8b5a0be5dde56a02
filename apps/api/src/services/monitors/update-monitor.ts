import { followCommittedSchedule, NotFoundError, Prisma, ValidationError } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { assertCan } from '../auth/permissions.js';
import type { MonitorServiceDeps } from './create-monitor.js';
import { findOwnMonitor, toRecords } from './get-monitor.js';
import { checkDependencies } from './monitor-dependencies.js';
import { crossFieldIssues, crossFieldStateOf, sealSecrets } from './monitor-rules.js';
import { validateUpdateInput } from './monitor-validation.js';
import { monitorRecordSelect, type MonitorRecord } from './monitor-record.js';

/**
 * PATCH /monitors/{id}: only the given fields change. Schedules follow in the same transaction: pausing removes
 * them, resuming restores them (with an immediate check), a new interval reschedules.
 */
export async function updateMonitor(
  deps: MonitorServiceDeps,
  { ctx, input }: { ctx: ServiceContext; input: { id: string; changes: unknown } },
): Promise<MonitorRecord> {
  assertCan(ctx.role, 'monitors:write');
  const { id } = input;
  const current = await findOwnMonitor(deps.prisma, ctx, id);
  const u = await validateUpdateInput(deps.guard, deps.config.checkRegions, current, input.changes);

  // `type` and `metadata` never get here: the schema refuses them.
  const {
    headers,
    body,
    jsonAssertion,
    keyword,
    keywordAbsent,
    escalationPolicyId,
    type: _type,
    metadata: _metadata,
    ...plain
  } = u;
  const data: Prisma.MonitorUpdateInput = {
    ...plain,
    // "" is no keyword, like null (docs/decisions.md).
    ...(keyword !== undefined ? { keyword: keyword || null } : {}),
    ...(keywordAbsent !== undefined ? { keywordAbsent: keywordAbsent || null } : {}),
    ...(jsonAssertion !== undefined ? { jsonAssertion: jsonAssertion ?? Prisma.DbNull } : {}),
    ...sealSecrets(deps.config, headers, body),
    // The certificate shown is the one of the target checked: a new target has none until its first https check.
    ...(u.target !== undefined && u.target !== current.target ? { certificate: Prisma.DbNull } : {}),
    // A heartbeat given an interval leaves its cron schedule (the schema refuses both in one body).
    ...(u.intervalSeconds !== undefined && current.type === 'heartbeat' ? { schedule: null } : {}),
  };
  if (u.name !== undefined) data.component = { update: { name: u.name } };
  if (escalationPolicyId !== undefined)
    data.escalationPolicy = escalationPolicyId ? { connect: { id: escalationPolicyId } } : { disconnect: true };

  const reschedules = u.enabled !== undefined || u.intervalSeconds !== undefined || u.regions !== undefined;
  const row = await deps.prisma
    .$transaction(async (tx) => {
      if (escalationPolicyId) {
        // Read in the transaction that connects it: FOR SHARE keeps a concurrent policy delete from slipping in between.
        const [policy] = await tx.$queryRaw<unknown[]>`
          SELECT 1 FROM escalation_policies
           WHERE id = ${escalationPolicyId}::uuid AND "workspaceId" = ${ctx.workspace.id}::uuid
             AND "archivedAt" IS NULL FOR SHARE`;
        if (!policy) {
          throw new ValidationError('Invalid monitor: escalationPolicyId', [
            { path: 'escalationPolicyId', message: 'is not an escalation policy of this workspace' },
          ]);
        }
      }
      if (u.dependsOn !== undefined)
        await checkDependencies(tx, { workspaceId: ctx.workspace.id, monitorId: current.id, dependsOn: u.dependsOn });
      const updated = await tx.monitor.update({
        where: { id: current.id, workspaceId: ctx.workspace.id },
        data,
        select: monitorRecordSelect,
      });
      // The rules between fields were judged on `current`, read before this transaction. The UPDATE holds the row lock
      // and returns the row as it now stands, including a PATCH that committed in between: two PATCHes that are each
      // fine alone (one sets method GET, the other a body) must not together store a GET with a body. Judged again on
      // the merged row, the later one is refused and rolled back.
      const raced = crossFieldIssues(crossFieldStateOf(updated));
      if (raced.length) {
        throw new ValidationError(
          `Invalid monitor: ${raced.map((i) => i.path).join(', ')}`,
          raced.map((i) => ({ ...i, message: `${i.message}; changed by another update meanwhile` })),
        );
      }
      // Redis follows the row as updated here, under its lock, never `current` (read before the lock): compared with
      // that stale copy, a pause and a resume racing each other left a resumed monitor unscheduled, or a paused one
      // checked, until the next reconciliation (test/resilience/api-replicas.test.ts). Both calls are idempotent, and
      // racing PATCHes make theirs in commit order, so Redis ends with the last committed state.
      if (reschedules) {
        if (updated.enabled) await deps.scheduler.schedule(updated);
        else await deps.scheduler.unschedule(updated.id);
      }
      return updated;
    })
    .catch((err: unknown) => {
      // The row went away between the read and the write (its workspace was deleted).
      if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2025')
        throw new NotFoundError('monitor', id);
      throw err;
    });
  // Once more after the commit, from the committed row: a reconciler pass between the write above and the commit
  // may have undone it. Should Redis fail right here, the reconciler corrects it within a round.
  if (reschedules) {
    await followCommittedSchedule(deps.scheduler, deps.prisma, row.id).catch(() => undefined);
  }
  // Resuming checks at once, queued after the commit so the worker sees the monitor enabled.
  if (u.enabled === true && !current.enabled) await deps.scheduler.runNow(row).catch(() => undefined);
  return (await toRecords(deps.prisma, ctx, [row], deps.config))[0]!;
}
