import { onCallAt, overridesWithin, scheduleSpecSelect, toScheduleSpec, type PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { toOnCallRecord, usersById, type ScheduleOnCallRecord } from './schedule-record.js';

/** GET /oncall: who is on call now in every schedule of the workspace (in the order they were created). */
export async function listOnCall(
  deps: { prisma: PrismaClient },
  { ctx }: { ctx: ServiceContext; input: Record<string, never> },
): Promise<ScheduleOnCallRecord[]> {
  const rows = await deps.prisma.schedule.findMany({
    where: { workspaceId: ctx.workspace.id },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    select: scheduleSpecSelect,
  });
  const overrides = await overridesWithin(
    deps.prisma,
    rows.map((r) => r.id),
    ctx.now,
    ctx.now,
  );
  const answers = rows.map((row) => {
    const spec = toScheduleSpec(
      row,
      overrides.filter((o) => o.scheduleId === row.id),
    );
    return { row, spec, now: onCallAt(spec, ctx.now) };
  });
  const users = await usersById(
    deps.prisma,
    answers.map((a) => a.now.userId),
  );
  return answers.map(({ row, spec, now }) => ({
    schedule: { id: row.id, name: row.name, timezone: row.timezone },
    ...toOnCallRecord(now, spec.layers, users),
  }));
}
