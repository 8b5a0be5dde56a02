import { hotQuery, hotStatement, type PrismaClient } from '@statusvane/shared';
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
 * The page's rollup rows as one text, "id hourMs sum count" joined by commas ($1 the workspace, $2 the monitors, $3 and
 * $4 the window): the same rows as separate rows cost the client 3-8 times the CPU (Prisma converts each value; a page
 * of 100 monitors, 14-40 ms against 4-5 ms), and as one JSON text PostgreSQL spent more on building it than on finding
 * them. A row per region: they are summed below, which cost PostgreSQL a third of the statement as a GROUP BY (most
 * monitors have one region: nothing to merge). Sums of whole milliseconds are exact as bigint text. A hot statement
 * (ADR 0021): parsing and planning it afresh cost PostgreSQL half a millisecond a page. The workspace's monitors
 * among those asked about are found by primary key (a join would hash all of its monitors).
 */
const SPARKLINE_ROWS = hotStatement(`
  SELECT string_agg(concat_ws(' ', r."monitorId", round(date_part('epoch', r.hour) * 1000)::bigint, r."responseSum",
    r."responseCount"), ',') AS rows
  FROM check_rollups_hourly r
  WHERE r."monitorId" = ANY(ARRAY(SELECT id FROM monitors WHERE "workspaceId" = $1::uuid AND id = ANY($2::uuid[])))
    AND r.hour >= $3::timestamptz AND r.hour < $4::timestamptz`);

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
  const out = new Map(
    input.monitorIds.map((id): [string, ResponseSparkline] => [
      id,
      { hours: window.hours.map(() => null), avgMs: null },
    ]),
  );
  if (input.monitorIds.length === 0) return out;
  const [doc] = await hotQuery<{ rows: string | null }>(prisma, SPARKLINE_ROWS, [
    ctx.workspace.id,
    input.monitorIds,
    window.from,
    window.to,
  ]);
  const index = new Map(window.hours.map((h, i) => [h.getTime(), i]));
  // Per monitor: each hour's sum and count (over its regions), then the whole day's.
  const sums = new Map<string, { sums: number[]; counts: number[] }>();
  for (const entry of doc?.rows ? doc.rows.split(',') : []) {
    const [id, atText, sumText, countText] = entry.split(' ') as [string, string, string, string];
    const i = index.get(Number(atText));
    const count = Number(countText);
    if (i === undefined || count === 0) continue;
    let s = sums.get(id);
    if (!s) sums.set(id, (s = { sums: window.hours.map(() => 0), counts: window.hours.map(() => 0) }));
    s.sums[i]! += Number(sumText);
    s.counts[i]! += count;
  }
  for (const [id, s] of sums) {
    const line = out.get(id)!;
    let sum = 0;
    let count = 0;
    s.counts.forEach((c, i) => {
      if (c === 0) return;
      line.hours[i] = Math.round(s.sums[i]! / c);
      sum += s.sums[i]!;
      count += c;
    });
    line.avgMs = Math.round(sum / count);
  }
  return out;
}
