import type { Pagination, PaginationQuery, PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { monitorLookup } from '../monitors/monitor-record.js';
import { findOwn, listPage } from '../records.js';
import { heartbeatPingSelect, toHeartbeatPingRecord, type HeartbeatPingRecord } from './ping-record.js';

/** GET /monitors/{id}/pings: the monitor's pings, newest first (none for a monitor that is not a heartbeat). */
export async function listPings(
  { prisma }: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: { id: string; query: PaginationQuery } },
): Promise<{ data: HeartbeatPingRecord[]; pagination: Pagination }> {
  const monitor = await findOwn(prisma, ctx, monitorLookup, input.id);
  const where = { monitorId: monitor.id };
  return listPage(
    prisma,
    input.query,
    (window) => [
      prisma.heartbeatPing.count({ where }),
      prisma.heartbeatPing.findMany({
        where,
        select: heartbeatPingSelect,
        orderBy: [{ at: 'desc' }, { id: 'desc' }],
        ...window,
      }),
    ],
    (rows) => rows.map(toHeartbeatPingRecord),
  );
}
