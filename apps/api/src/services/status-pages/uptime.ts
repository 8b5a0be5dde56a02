import type { PeriodFigures, UptimeAccount } from '@statusvane/shared';

/** Status pages show this many UTC days of uptime, ending today. */
export const UPTIME_DAYS = 90;
const DAY_MS = 86_400_000;

export interface DailyCounts {
  day: Date;
  total: number;
  downCount: number;
  degradedCount: number;
}

export interface UptimeDay {
  /** UTC day, `YYYY-MM-DD`. */
  date: string;
  /** Checks that day (all regions), and how many failed or were slow: the daily rollups. */
  total: number;
  downCount: number;
  degradedCount: number;
  /**
   * Uptime that day from the accounting function under the workspace policy (seconds counted as up / counted, 4
   * decimals); null when the policy counts nothing that day ("no data").
   */
  percent: number | null;
  /** The day's seconds down, degraded, in maintenance and without data (accounting's states). */
  downSeconds: number;
  degradedSeconds: number;
  maintenanceSeconds: number;
  noDataSeconds: number;
}

export interface UptimeSeries {
  /** Over the whole range, from the accounting function; null when it counts nothing. */
  percent: number | null;
  days: UptimeDay[];
}

/** Midnight UTC of the day `d` falls in. */
export function utcDay(d: Date): Date {
  return new Date(Math.floor(d.getTime() / DAY_MS) * DAY_MS);
}

export const isoDay = (d: Date): string => d.toISOString().slice(0, 10);

/** The first and last UTC day of the `days`-day range that ends on the day of `now`. */
export function uptimeRange(now: Date, days = UPTIME_DAYS): { from: Date; to: Date } {
  const to = utcDay(now);
  return { from: new Date(to.getTime() - (days - 1) * DAY_MS), to };
}

/**
 * One entry per UTC day from the oldest to today: the day's check counts (the rows of a day summed over regions; rows
 * outside the range ignored) beside the day's figures of the monitor's account (counted per UTC day from
 * the range's first day up to now; null: no monitor, no data).
 */
export function uptimeSeries(
  rows: readonly DailyCounts[],
  account: UptimeAccount | null,
  now: Date,
  days = UPTIME_DAYS,
): UptimeSeries {
  const { from } = uptimeRange(now, days);
  const byDay = new Map<string, { total: number; downCount: number; degradedCount: number }>();
  for (const r of rows) {
    const key = isoDay(utcDay(r.day));
    const sum = byDay.get(key) ?? { total: 0, downCount: 0, degradedCount: 0 };
    sum.total += r.total;
    sum.downCount += r.downCount;
    sum.degradedCount += r.degradedCount;
    byDay.set(key, sum);
  }
  const figures = new Map<string, PeriodFigures>((account?.periods ?? []).map((p) => [isoDay(new Date(p.from)), p]));
  const out: UptimeDay[] = [];
  for (let i = 0; i < days; i++) {
    const date = isoDay(new Date(from.getTime() + i * DAY_MS));
    const c = byDay.get(date) ?? { total: 0, downCount: 0, degradedCount: 0 };
    const f = figures.get(date);
    out.push({
      date,
      ...c,
      percent: f?.uptimePercent ?? null,
      downSeconds: f?.downSeconds ?? 0,
      degradedSeconds: f?.degradedSeconds ?? 0,
      maintenanceSeconds: f?.maintenanceSeconds ?? 0,
      noDataSeconds: f?.noDataSeconds ?? 0,
    });
  }
  return { percent: account?.total.uptimePercent ?? null, days: out };
}
