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
  total: number;
  downCount: number;
  degradedCount: number;
  /** null when there were no checks that day ("no data"). */
  percent: number | null;
}

export interface UptimeSeries {
  /** Over the whole range: (total - down) / total; null when there is no data at all. */
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
 * Uptime in percent, rounded down to 3 decimals: a day with any failed check never shows as 100%. Degraded
 * checks passed, so they count as up.
 */
export function uptimePercent(total: number, downCount: number): number | null {
  if (total <= 0) return null;
  const up = Math.max(0, total - Math.min(downCount, total));
  return Math.floor((up * 100_000) / total) / 1000;
}

/**
 * One entry per UTC day from the oldest to today, summing the rows of a day (one per region). Rows outside the
 * range are ignored; days without rows are "no data" (total 0, percent null).
 */
export function uptimeSeries(rows: readonly DailyCounts[], now: Date, days = UPTIME_DAYS): UptimeSeries {
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
  const out: UptimeDay[] = [];
  let total = 0;
  let down = 0;
  for (let i = 0; i < days; i++) {
    const date = isoDay(new Date(from.getTime() + i * DAY_MS));
    const c = byDay.get(date) ?? { total: 0, downCount: 0, degradedCount: 0 };
    total += c.total;
    down += c.downCount;
    out.push({ date, ...c, percent: uptimePercent(c.total, c.downCount) });
  }
  return { percent: uptimePercent(total, down), days: out };
}
