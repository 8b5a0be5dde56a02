import type { PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { lastDayWindow } from './monitor-rollups.js';

/** A monitor's response times over the last 24 hours (ms, all regions). */
export interface ResponseSparkline {
  /** The average of each whole hour, oldest first; null: no check answered that hour. */
  hours: Array<number | null>;
  /** The average over the 24 hours (weighted by checks: the key of `sort=responseTime`); null: no answer at all. */
  avgMs: number | null;
}

/**
 * The monitors list's sparklines: per monitor, the average response time of each of the last 24 whole hours (the
 * `avgMs` of `GET /monitors/{id}/response-times?period=day`) and over all of them, for a page of the workspace's
 * monitors in one read of the hourly rollups. Another workspace's id gets an empty line.
 */
export async function listResponseSparklines(
  { prisma }: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: { monitorIds: readonly string[] } },
): Promise<Map<string, ResponseSparkline>> {
  const window = lastDayWindow(ctx.now);
  const sums = new Map(input.monitorIds.map((id) => [id, { sum: 0, count: 0 }]));
  const out = new Map(
    input.monitorIds.map((id): [string, ResponseSparkline] => [
      id,
      { hours: window.hours.map(() => null), avgMs: null },
    ]),
  );
  if (input.monitorIds.length === 0) return out;
  const rows = await prisma.$queryRaw<Array<{ id: string; hour: Date; sum: number; count: number }>>`
    SELECT r."monitorId"::text AS id, r.hour, sum(r."responseSum")::float8 AS sum, sum(r."responseCount")::int AS count
    FROM check_rollups_hourly r
    -- The workspace's monitors among those asked about, by primary key (a join would hash all of its monitors).
    WHERE r."monitorId" = ANY(ARRAY(
        SELECT id FROM monitors WHERE "workspaceId" = ${ctx.workspace.id}::uuid AND id = ANY(${[...input.monitorIds]}::uuid[])
      ))
      AND r.hour >= ${window.from} AND r.hour < ${window.to}
    GROUP BY r."monitorId", r.hour`;
  const index = new Map(window.hours.map((h, i) => [h.getTime(), i]));
  for (const r of rows) {
    const i = index.get(new Date(r.hour).getTime());
    if (i === undefined || r.count === 0) continue;
    out.get(r.id)!.hours[i] = Math.round(r.sum / r.count);
    const s = sums.get(r.id)!;
    s.sum += r.sum;
    s.count += r.count;
  }
  for (const [id, s] of sums) if (s.count > 0) out.get(id)!.avgMs = Math.round(s.sum / s.count);
  return out;
}
