import {
  type Config,
  maintenanceCoverage,
  maintenanceWindowsNear,
  NotFoundError,
  Prisma,
  recordEvents,
  tryDecryptSecret,
  type ApiStepInput,
  type UpdateMonitorInput,
} from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { assertCan } from '../auth/permissions.js';
import type { MonitorServiceDeps } from './create-monitor.js';
import { checkDependencies } from './monitor-dependencies.js';
import { crossFieldIssues, crossFieldStateOf } from './monitor-rules.js';
import { monitorUpdateData } from './monitor-data.js';
import { failWith } from '../validation.js';
import { changesBetween, claimVersion, recordUpdate } from '../audit/record-write.js';
import {
  monitorRecordSelect,
  monitorSettings,
  toMonitorRecord,
  type MonitorRecord,
  monitorLookup,
} from './monitor-record.js';
import { checkNow, followSchedule } from './monitor-schedule.js';
import { findOwn } from '../records.js';
import { keepStoredStepSecrets, lockSecrets, mentionsRedacted, openStoredSteps } from './monitor-secrets.js';

/**
 * PATCH /monitors/{id}: only the given fields change. Schedules follow in the same transaction: pausing removes
 * them, resuming restores them (with an immediate check), a new interval or new regions reschedule. `changes` passed
 * updateMonitorChecks (monitor-validation.ts) against the monitor as read then; the rules between fields, the policy
 * and `dependsOn` are judged again on the locked row.
 */
export async function updateMonitor(
  deps: MonitorServiceDeps,
  { ctx, input }: { ctx: ServiceContext; input: { id: string; changes: UpdateMonitorInput } },
): Promise<MonitorRecord> {
  assertCan(ctx.role, 'monitors:write');
  const { id, changes: u } = input;
  const current = await findOwn(deps.prisma, ctx, monitorLookup, id);

  // `type` and `metadata` never get here: the schema refuses them.
  const { type: _type, metadata: _metadata, ...changes } = u;
  const { headers, body } = u;
  // Step secrets sent back as "<redacted>" keep the stored ones (judged by updateMonitorChecks).
  const storedSteps = u.steps ? openStoredSteps(current, deps.config.encryption) : null;
  if (u.steps && mentionsRedacted(u.steps)) {
    const kept = keepStoredStepSecrets(u.steps, storedSteps);
    if (kept.issues.length) failWith('monitor', kept.issues);
    changes.steps = kept.steps;
  }
  const data = monitorUpdateData(deps.config, current, changes);
  const { escalationPolicyId } = u;

  const reschedules = u.enabled !== undefined || u.intervalSeconds !== undefined || u.regions !== undefined;
  // Read before the transaction (as a create does): the record, built in it for the monitor.updated event, shows it.
  const windows = await maintenanceWindowsNear(deps.prisma, ctx.workspace.id, ctx.now);
  const { row, record } = await deps.prisma
    .$transaction(async (tx) => {
      // The If-Match check, and the row lock under which `before` is read and the write made.
      await claimVersion(tx, ctx, 'monitor', current.id);
      const before = await tx.monitor.findUniqueOrThrow({
        where: { id: current.id },
        select: { ...monitorRecordSelect, headersEnc: true, encKeyId: true },
      });
      if (escalationPolicyId) {
        // Read in the transaction that connects it: FOR SHARE keeps a concurrent policy delete from slipping in between.
        const [policy] = await tx.$queryRaw<unknown[]>`
          SELECT 1 FROM escalation_policies
           WHERE id = ${escalationPolicyId}::uuid AND "workspaceId" = ${ctx.workspace.id}::uuid
             AND "archivedAt" IS NULL FOR SHARE`;
        if (!policy)
          failWith('monitor', [
            { path: 'escalationPolicyId', message: 'is not an escalation policy of this workspace' },
          ]);
      }
      if (u.dependsOn !== undefined)
        await checkDependencies(tx, { workspaceId: ctx.workspace.id, monitorId: current.id, dependsOn: u.dependsOn });
      if (Array.isArray(data.secretRefs)) await lockSecrets(tx, ctx.workspace.id, data.secretRefs);
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
      if (raced.length)
        failWith(
          'monitor',
          raced.map((i) => ({ ...i, message: `${i.message}; changed by another update meanwhile` })),
        );
      // Redis follows the row as updated here, under its lock, never `current` (read before the lock): compared with
      // that stale copy, a pause and a resume racing each other left a resumed monitor unscheduled, or a paused one
      // checked, until the next reconciliation (test/resilience/api-replicas.test.ts). Both calls are idempotent, and
      // racing PATCHes make theirs in commit order, so Redis ends with the last committed state.
      const version = await recordUpdate(tx, ctx, {
        resourceType: 'monitor',
        resourceId: current.id,
        changes: changesBetween(monitorSettings(before, deps.config), monitorSettings(updated, deps.config), {
          // Write-only secrets count as changed only when the value sent differs from the stored one.
          ...(headers !== undefined &&
          !sameSecret(
            deps.config,
            before.headersEnc,
            before.encKeyId,
            Object.keys(headers).length ? JSON.stringify(headers) : null,
          )
            ? { headers: [before.headerNames.length > 0, updated.headerNames.length > 0] }
            : {}),
          ...(body !== undefined && !sameSecret(deps.config, before.bodyEnc, before.encKeyId, body)
            ? { body: [before.bodyEnc !== null, updated.bodyEnc !== null] }
            : {}),
          // The steps' headers and bodies: changed when what they hold differs (compared in memory, never shown).
          ...(changes.steps !== undefined && stepSecretsOf(changes.steps) !== stepSecretsOf(storedSteps)
            ? { stepSecrets: [before.stepSecretsEnc !== null, updated.stepSecretsEnc !== null] }
            : {}),
        }),
      });
      // Its partitions' schedulers (docs/adr/0020-partitioned-scheduling.md); a pause writes nothing to Redis: the
      // partitions' jobs read the committed row.
      if (reschedules && updated.enabled) await deps.scheduler.schedule(updated);
      const row = { ...updated, version: version ?? updated.version };
      const record = toMonitorRecord(row, {
        publicBaseUrl: deps.config.publicBaseUrl,
        checkRegions: deps.config.checkRegions,
        maintenanceUntil: maintenanceCoverage(windows, [row.componentId], ctx.now).get(row.componentId) ?? null,
        now: ctx.now,
      });
      // A PATCH that changed nothing records nothing: no version, no audit event, no `monitor.updated` (as webhooks).
      if (version !== undefined)
        await recordEvents(tx, [
          {
            workspaceId: ctx.workspace.id,
            type: 'monitor.updated',
            subject: `monitors/${row.id}`,
            data: { monitor: record },
          },
        ]);
      return { row, record };
    })
    .catch((err: unknown) => {
      // The row went away between the read and the write (its workspace was deleted).
      if (err instanceof Prisma.PrismaClientKnownRequestError && err.code === 'P2025')
        throw new NotFoundError('monitor', id);
      throw err;
    });
  // Once more after the commit, from the committed row: a reconciler pass between the write above and the commit
  // may have undone it. Should Redis fail right here, the reconciler corrects it within a round.
  if (reschedules && row.enabled) await followSchedule(deps, row.id, 'monitor updated');
  // Resuming checks at once, queued after the commit so the worker sees the monitor enabled.
  if (u.enabled === true && !current.enabled) await checkNow(deps, row, 'monitor resumed');
  return record;
}

/** What the steps' write-only parts hold, to compare (null: unreadable, which any value sent differs from). */
function stepSecretsOf(steps: readonly ApiStepInput[] | null): string | null {
  return steps && JSON.stringify(steps.map((s) => [s.name, s.headers ?? {}, s.body ?? null]));
}

/** True when `stored` (encrypted, or null) holds exactly `sent`; a value no configured key opens counts as different. */
function sameSecret(config: Config, stored: string | null, keyId: string | null, sent: string | null): boolean {
  if (stored === null || sent === null) return stored === sent;
  return tryDecryptSecret(stored, keyId, config.encryption) === sent;
}
