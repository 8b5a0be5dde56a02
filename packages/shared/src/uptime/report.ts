import type { PrismaClient } from '../db/prisma.js';
import {
  accountUptime,
  DEFAULT_ACCOUNTING_POLICY,
  type AccountingPolicy,
  type PeriodFigures,
  type UptimeAccount,
  type UptimeTimeline,
} from './accounting.js';
import { loadUptimeTimelines, type AccountedMonitor } from './load-timelines.js';
import { periodsOf, type Granularity } from './periods.js';

export const MAINTENANCE_POLICIES = ['excluded', 'up', 'down'] as const;
export const DEGRADED_POLICIES = ['up', 'down'] as const;
export const NO_DATA_POLICIES = ['excluded', 'up', 'down'] as const;

/** The workspace's accounting settings (`/settings/accounting`), the defaults at version 1 until first changed. */
export interface AccountingSettings extends AccountingPolicy {
  timezone: string;
  reportRecipients: string[];
  version: number;
}

export const DEFAULT_ACCOUNTING_SETTINGS: Readonly<AccountingSettings> = {
  ...DEFAULT_ACCOUNTING_POLICY,
  timezone: 'UTC',
  reportRecipients: [],
  version: 1,
};

/** What every figure names: the policy it was counted with and its version. */
export type NamedPolicy = AccountingPolicy & { version: number };

export const namedPolicy = (s: AccountingSettings): NamedPolicy => ({
  maintenance: s.maintenance,
  degraded: s.degraded,
  noData: s.noData,
  version: s.version,
});

/** The workspace's accounting settings as stored, or the defaults. */
export async function loadAccountingSettings(
  prisma: Pick<PrismaClient, 'accountingPolicy'>,
  workspaceId: string,
): Promise<AccountingSettings> {
  const row = await prisma.accountingPolicy.findUnique({ where: { workspaceId } });
  if (!row) return { ...DEFAULT_ACCOUNTING_SETTINGS, reportRecipients: [] };
  return {
    maintenance: row.maintenance as AccountingPolicy['maintenance'],
    degraded: row.degraded as AccountingPolicy['degraded'],
    noData: row.noData as AccountingPolicy['noData'],
    timezone: row.timezone,
    reportRecipients: row.reportRecipients,
    version: row.version,
  };
}

/**
 * The accounts of some monitors over [from, to) (whole seconds) in periods of `granularity` in `timezone`: their
 * timelines read at once (loadUptimeTimelines), each counted by the one accounting function (accountUptime).
 */
export async function accountMonitors(
  prisma: PrismaClient,
  input: {
    workspaceId: string;
    monitors: ReadonlyArray<AccountedMonitor & { slaTarget: number | null }>;
    from: number;
    to: number;
    granularity: Granularity;
    timezone: string;
    policy: AccountingPolicy;
  },
): Promise<Map<string, UptimeAccount>> {
  const { from, to, granularity, timezone, policy } = input;
  const periods = periodsOf({ from, to, granularity, timezone });
  const timelines = await loadUptimeTimelines(prisma, {
    workspaceId: input.workspaceId,
    monitors: input.monitors,
    from: new Date(from),
    to: new Date(to),
  });
  return new Map(
    input.monitors.map((m) => [m.id, accountUptime(timelines.get(m.id)!, { policy, periods, slaTarget: m.slaTarget })]),
  );
}

/**
 * The figures of some monitors over windows that all end at `to` (whole seconds) and reach `durationsMs` back (the
 * console's last 24 hours, 7, 30 and 90 days), in the order given: one read of their timelines over the longest, and
 * each window counted by the one accounting function (accountUptime) as a period of its own (they overlap, so they
 * cannot be periods of one call).
 */
export async function accountMonitorWindows(
  prisma: PrismaClient,
  input: {
    workspaceId: string;
    monitors: readonly AccountedMonitor[];
    to: number;
    durationsMs: readonly number[];
    policy: AccountingPolicy;
  },
): Promise<Map<string, PeriodFigures[]>> {
  const { to, durationsMs, policy } = input;
  const timelines = await loadUptimeTimelines(prisma, {
    workspaceId: input.workspaceId,
    monitors: input.monitors,
    from: new Date(to - Math.max(0, ...durationsMs)),
    to: new Date(to),
  });
  const account = (t: UptimeTimeline) =>
    durationsMs.map((d) => accountUptime(t, { policy, periods: [{ from: to - d, to }] }).total);
  // A timeline of nothing but its creation (most monitors over a day: no pause, miss, incident or maintenance) counts
  // the same as any other created at that instant, or, created before the longest window, as any other created before
  // it (its no-data time then ends before every window): counted once, its figures shared (read-only).
  const longest = to - Math.max(0, ...durationsMs);
  const bare = new Map<number, PeriodFigures[]>();
  return new Map(
    input.monitors.map((m) => {
      const t = timelines.get(m.id)!;
      if (!isBare(t)) return [m.id, account(t)];
      const key = Math.max(t.createdAt, longest);
      let figures = bare.get(key);
      if (!figures) bare.set(key, (figures = account(t)));
      return [m.id, figures];
    }),
  );
}

const isBare = (t: UptimeTimeline) =>
  t.paused.length + t.missed.length + t.maintenance.length + t.incidents.length + t.degraded.length === 0;

/** The CSV report's fixed header (beyond-the-seed §8). */
export const UPTIME_CSV_HEADER =
  'monitor_id,monitor_name,period_start,period_end,uptime_percent,up_seconds,degraded_seconds,down_seconds,maintenance_seconds,no_data_seconds,incidents';

/** A CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break, quotes doubled. */
const field = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

/**
 * The report as CSV (RFC 4180, CRLF line ends): the header, then one line per monitor and period; times in RFC 3339
 * UTC, the percentage empty when nothing was counted, incident ids separated by spaces.
 */
export function uptimeCsv(
  rows: ReadonlyArray<{ monitorId: string; monitorName: string; periods: readonly PeriodFigures[] }>,
): string {
  const lines = [UPTIME_CSV_HEADER];
  const iso = isoMemo();
  for (const r of rows)
    for (const p of r.periods)
      lines.push(
        [
          r.monitorId,
          field(r.monitorName),
          iso(p.from),
          iso(p.to),
          p.uptimePercent === null ? '' : String(p.uptimePercent),
          p.upSeconds,
          p.degradedSeconds,
          p.downSeconds,
          p.maintenanceSeconds,
          p.noDataSeconds,
          p.incidents.join(' '),
        ].join(','),
      );
  return lines.join('\r\n') + '\r\n';
}

/** RFC 3339 (UTC) of an instant in ms, remembered: every monitor of a report has the same period bounds. */
export function isoMemo(): (ms: number) => string {
  const seen = new Map<number, string>();
  return (ms) => {
    let out = seen.get(ms);
    if (out === undefined) seen.set(ms, (out = new Date(ms).toISOString()));
    return out;
  };
}
