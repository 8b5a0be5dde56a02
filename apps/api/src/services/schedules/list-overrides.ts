import type { PaginationQuery, PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { findOwn, listPage } from '../records.js';
import { overrideSelect, scheduleLookup, toOverrideRecord } from './schedule-record.js';

/** GET /schedules/{id}/overrides: the overrides that have not ended yet, soonest first. */
export async function listOverrides(
  deps: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: { id: string; query: PaginationQuery } },
) {
  const schedule = await findOwn(deps.prisma, ctx, scheduleLookup, input.id);
  const where = { scheduleId: schedule.id, endsAt: { gt: ctx.now } };
  return listPage(
    deps.prisma,
    input.query,
    (window) => [
      deps.prisma.scheduleOverride.count({ where }),
      deps.prisma.scheduleOverride.findMany({
        where,
        orderBy: [{ startsAt: 'asc' }, { createdAt: 'asc' }],
        select: overrideSelect,
        ...window,
      }),
    ],
    (rows) => rows.map(toOverrideRecord),
  );
}
