import { pagination, type Pagination, type PaginationQuery, type PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { findOwnMonitor } from '../monitors/get-monitor.js';
import { heartbeatPingSelect, toHeartbeatPingRecord, type HeartbeatPingRecord } from './ping-record.js';

/** GET /monitors/{id}/pings: the monitor's pings, newest first (none for a monitor that is not a heartbeat). */
export async function listPings(
  { prisma }: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: { id: string; query: PaginationQuery } },
): Promise<{ data: HeartbeatPingRecord[]; pagination: Pagination }> {
  const monitor = await findOwnMonitor(prisma, ctx, input.id);
  const where = { monitorId: monitor.id };
  const [total, rows] = await prisma.$transaction([
    prisma.heartbeatPing.count({ where }),
    prisma.heartbeatPing.findMany({
      where,
      select: heartbeatPingSelect,
      orderBy: [{ at: 'desc' }, { id: 'desc' }],
      skip: (input.query.page - 1) * input.query.perPage,
      take: input.query.perPage,
    }),
  ]);
  return { data: rows.map(toHeartbeatPingRecord), pagination: pagination(input.query, total) };
}
