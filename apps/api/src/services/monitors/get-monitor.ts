import { NotFoundError, uuidSchema, type PrismaClient } from '@statusvane/shared';
import type { RequestContext } from '../auth/context.js';
import { maintenanceUntilByComponent } from '../maintenance/active-maintenance.js';
import { monitorRecordSelect, toMonitorRecord, type MonitorRecord, type MonitorRow } from './monitor-record.js';

/** Loads one of the caller's monitors; a malformed or foreign id is the same 404 as a missing one. */
export async function findOwnMonitor(prisma: PrismaClient, ctx: RequestContext, id: string): Promise<MonitorRow & { workspaceId?: string }> {
  if (!uuidSchema.safeParse(id).success) throw new NotFoundError('monitor', id);
  const row = await prisma.monitor.findFirst({ where: { id, workspaceId: ctx.workspace.id }, select: monitorRecordSelect });
  if (!row) throw new NotFoundError('monitor', id);
  return row;
}

/** Maps rows to records with their current maintenance state. */
export async function toRecords(prisma: PrismaClient, ctx: RequestContext, rows: MonitorRow[], publicBaseUrl: string): Promise<MonitorRecord[]> {
  const until = await maintenanceUntilByComponent(prisma, ctx.workspace.id, rows.map((r) => r.componentId));
  return rows.map((r) => toMonitorRecord(r, { publicBaseUrl, maintenanceUntil: until.get(r.componentId) ?? null }));
}

/** GET /monitors/{id} */
export async function getMonitor(deps: { prisma: PrismaClient; publicBaseUrl: string }, { ctx, id }: { ctx: RequestContext; id: string }): Promise<MonitorRecord> {
  const row = await findOwnMonitor(deps.prisma, ctx, id);
  return (await toRecords(deps.prisma, ctx, [row], deps.publicBaseUrl))[0]!;
}
