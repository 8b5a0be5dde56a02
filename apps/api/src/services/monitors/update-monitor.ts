import {
  httpTargetSchema,
  parseOrThrow,
  Prisma,
  tcpTargetSchema,
  UPDATE_FIELDS_BY_TYPE,
  updateMonitorSchema,
  ValidationError,
} from '@statusvane/shared';
import type { RequestContext } from '../auth/context.js';
import { assertCan } from '../auth/permissions.js';
import type { MonitorServiceDeps } from './create-monitor.js';
import { findOwnMonitor, toRecords } from './get-monitor.js';
import { assertTargetAllowed, crossFieldIssues, sealSecrets } from './monitor-rules.js';
import { monitorRecordSelect, type MonitorRecord } from './monitor-record.js';

/**
 * PATCH /monitors/{id}: only the given fields change. Schedules follow in the same transaction: pausing removes
 * them, resuming restores them (with an immediate check), a new interval reschedules.
 */
export async function updateMonitor(
  deps: MonitorServiceDeps,
  { ctx, id, input }: { ctx: RequestContext; id: string; input: unknown },
): Promise<MonitorRecord> {
  assertCan(ctx.role, 'monitors:write');
  const current = await findOwnMonitor(deps.prisma, ctx, id);
  const u = parseOrThrow(updateMonitorSchema, input, 'monitor');

  const allowed = UPDATE_FIELDS_BY_TYPE[current.type];
  const notForType = Object.keys(u).filter((k) => !allowed.has(k));
  if (notForType.length) {
    throw new ValidationError(
      `Invalid monitor: ${notForType.join(', ')}`,
      notForType.map((path) => ({ path, message: `not accepted for ${current.type} monitors` })),
    );
  }
  if (u.target !== undefined && current.type !== 'heartbeat') {
    parseOrThrow(current.type === 'http' ? httpTargetSchema : tcpTargetSchema, u.target, 'target');
    await assertTargetAllowed(deps.guard, current.type, u.target);
  }
  const issues = crossFieldIssues({
    method: u.method ?? current.method,
    hasBody: u.body !== undefined ? u.body !== null : current.bodyEnc !== null,
    degradedAfterMs: u.degradedAfterMs !== undefined ? u.degradedAfterMs : current.degradedAfterMs,
    latencyThresholdMs: u.latencyThresholdMs !== undefined ? u.latencyThresholdMs : current.latencyThresholdMs,
  });
  if (issues.length) throw new ValidationError(`Invalid monitor: ${issues.map((i) => i.path).join(', ')}`, issues);

  // `type` and `metadata` never get here: the schema refuses them.
  const { headers, body, jsonAssertion, type: _type, metadata: _metadata, ...plain } = u;
  const data: Prisma.MonitorUpdateInput = {
    ...plain,
    ...(jsonAssertion !== undefined ? { jsonAssertion: jsonAssertion ?? Prisma.DbNull } : {}),
    ...sealSecrets(deps.config, headers, body),
  };
  if (u.name !== undefined) data.component = { update: { name: u.name } };

  const row = await deps.prisma.$transaction(async (tx) => {
    const updated = await tx.monitor.update({ where: { id: current.id }, data, select: monitorRecordSelect });
    // Redis follows the row as updated here, under its lock, never `current` (read before the lock): compared with
    // that stale copy, a pause and a resume racing each other left a resumed monitor unscheduled, or a paused one
    // checked, until the next reconciliation (test/resilience/api-replicas.test.ts). Both calls are idempotent, and
    // racing PATCHes make theirs in commit order, so Redis ends with the last committed state.
    if (u.enabled !== undefined || u.intervalSeconds !== undefined) {
      if (updated.enabled) await deps.scheduler.schedule(updated);
      else await deps.scheduler.unschedule(updated.id);
    }
    return updated;
  });
  // Resuming checks at once, queued after the commit so the worker sees the monitor enabled.
  if (u.enabled === true && !current.enabled) await deps.scheduler.runNow(row).catch(() => undefined);
  return (await toRecords(deps.prisma, ctx, [row], deps.config.publicBaseUrl))[0]!;
}
