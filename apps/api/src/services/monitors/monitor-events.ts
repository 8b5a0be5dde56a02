import {
  maintenanceWindowsNear,
  maintenanceCoverage,
  recordEvents,
  type PrismaClient,
  type Prisma,
} from '@statusvane/shared';
import type { WriteContext } from '../audit/record-write.js';
import { monitorRecordSelect, toMonitorRecord } from './monitor-record.js';

/**
 * `monitor.created` or `monitor.updated` for monitors written in `tx` by a path other than the monitor services (a
 * config apply, the admin CLI's `policy assign`), each with the record as the API shows it, read in `tx` after the
 * write (so with its new `version`). The services record their own with the record they answer.
 */
export async function recordMonitorEvents(
  tx: Prisma.TransactionClient,
  deps: { prisma: PrismaClient; config: { publicBaseUrl: string; checkRegions: readonly string[] } },
  ctx: Pick<WriteContext, 'workspace' | 'now'>,
  type: 'monitor.created' | 'monitor.updated',
  ids: readonly string[],
): Promise<void> {
  if (ids.length === 0) return;
  const workspaceId = ctx.workspace.id;
  const [rows, windows] = await Promise.all([
    tx.monitor.findMany({ where: { id: { in: [...ids] }, workspaceId }, select: monitorRecordSelect }),
    maintenanceWindowsNear(deps.prisma, workspaceId, ctx.now),
  ]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const until = maintenanceCoverage(
    windows,
    rows.map((r) => r.componentId),
    ctx.now,
  );
  await recordEvents(
    tx,
    ids.flatMap((id) => {
      const row = byId.get(id);
      if (!row) return [];
      const monitor = toMonitorRecord(row, {
        publicBaseUrl: deps.config.publicBaseUrl,
        checkRegions: deps.config.checkRegions,
        maintenanceUntil: until.get(row.componentId) ?? null,
        now: ctx.now,
      });
      return [{ workspaceId, type, subject: `monitors/${id}`, data: { monitor } }];
    }),
  );
}
