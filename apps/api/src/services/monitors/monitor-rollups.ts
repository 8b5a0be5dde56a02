import { bucketStarts, PERIODS, type PrismaClient } from '@statusvane/shared';

type Reader = Pick<PrismaClient, '$queryRaw'>;

/** A window of hourly rollups: [from, to), and the start of each hour in it. */
export interface HourWindow {
  from: Date;
  to: Date;
  hours: Date[];
}

/**
 * The last 24 hours as the monitors list reads them: the window of `GET /monitors/{id}/response-times?period=day`
 * (24 whole UTC hours, the current one last), so a sparkline shows what that history shows.
 */
export function lastDayWindow(now: Date): HourWindow {
  const hours = bucketStarts('day', now);
  return { from: hours[0]!, to: new Date(hours.at(-1)!.getTime() + PERIODS.day.bucketSeconds * 1000), hours };
}

/**
 * Each monitor's average response time over the window (the checks that got a response, all regions), null when no
 * check answered: the key of `sort=responseTime`. One grouped read of the hourly rollups for any number of monitors.
 */
export async function averageResponseTimes(
  prisma: Reader,
  monitorIds: readonly string[],
  window: HourWindow,
): Promise<Map<string, number | null>> {
  if (monitorIds.length === 0) return new Map();
  const rows = await prisma.$queryRaw<Array<{ id: string; avg: number | null }>>`
    SELECT "monitorId"::text AS id, (sum("responseSum") / nullif(sum("responseCount"), 0))::float8 AS avg
    FROM check_rollups_hourly
    WHERE "monitorId" = ANY(${[...monitorIds]}::uuid[]) AND hour >= ${window.from} AND hour < ${window.to}
    GROUP BY "monitorId"`;
  return new Map(rows.map((r) => [r.id, r.avg === null ? null : Math.round(r.avg)]));
}
