import type { PaginationQuery, PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { listPage } from '../records.js';
import { scheduleRecordSelect, toScheduleRecord } from './schedule-record.js';

/** GET /schedules: the workspace's schedules, oldest first. */
export async function listSchedules(
  deps: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: PaginationQuery },
) {
  const where = { workspaceId: ctx.workspace.id };
  return listPage(
    deps.prisma,
    input,
    (window) => [
      deps.prisma.schedule.count({ where }),
      deps.prisma.schedule.findMany({
        where,
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        select: scheduleRecordSelect,
        ...window,
      }),
    ],
    (rows) => rows.map(toScheduleRecord),
  );
}
