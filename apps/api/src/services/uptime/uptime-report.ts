import {
  accountMonitors,
  isoMemo,
  loadAccountingSettings,
  maintenanceWindowsNear,
  monitorRegions,
  namedPolicy,
  paginationQuerySchema,
  periodsOf,
  singleQueryValue,
  ValidationError,
  type AccountingSettings,
  type Config,
  type Pagination,
  type PeriodFigures,
  type Prisma,
  type PrismaClient,
  type UptimeAccount,
} from '@statusvane/shared';
import { z } from '../../schemas/zod.js';
import type { ServiceContext } from '../context.js';
import { maintenanceCoverOf, monitorFilterWhere, needsCover, withMonitorFilters } from '../monitors/monitor-filters.js';
import { listPage } from '../records.js';
import { judgeRange, monitorIdsParam, rangeQueryShape, type ReportRange } from './report-range.js';
import { toMonitorUptime, type UptimeReportRow } from './uptime-record.js';

/** GET /reports/uptime: the range, `monitorIds`, `format`, and the filters of GET /monitors (with its pagination). */
export const uptimeReportQuerySchema = withMonitorFilters(
  paginationQuerySchema.extend({
    ...rangeQueryShape,
    monitorIds: monitorIdsParam.optional(),
    format: singleQueryValue(z.enum(['json', 'csv']))
      .optional()
      .openapi({ description: '`csv`: answer CSV (as `Accept: text/csv` does). Default: JSON.' }),
  }),
);
export type UptimeReportQuery = z.output<typeof uptimeReportQuerySchema>;

/** A CSV answer holds at most this many lines (monitors x periods): narrow the filters or widen the granularity. */
export const MAX_CSV_ROWS = 100_000;

const monitorSelect = {
  id: true,
  name: true,
  componentId: true,
  createdAt: true,
  type: true,
  regions: true,
  slaTarget: true,
} as const satisfies Prisma.MonitorSelect;
type ReportMonitor = Prisma.MonitorGetPayload<{ select: typeof monitorSelect }>;

/**
 * The report's monitors: the filters of GET /monitors and `monitorIds`, in the caller's workspace. A status filter
 * reads the maintenance in progress first, as GET /monitors does (the status a record shows depends on it).
 */
async function reportWhere(
  prisma: PrismaClient,
  ctx: ServiceContext,
  query: UptimeReportQuery,
): Promise<Prisma.MonitorWhereInput> {
  const cover = needsCover(query)
    ? maintenanceCoverOf(await maintenanceWindowsNear(prisma, ctx.workspace.id, ctx.now), ctx.now)
    : null;
  return {
    AND: [
      monitorFilterWhere(ctx.workspace.id, query, cover),
      ...(query.monitorIds ? [{ id: { in: query.monitorIds } }] : []),
    ],
  };
}
const byAge = [{ createdAt: 'asc' as const }, { id: 'asc' as const }];

/** The policy and the judged range of a report. */
export async function reportSettings(prisma: PrismaClient, ctx: ServiceContext, query: UptimeReportQuery) {
  const settings = await loadAccountingSettings(prisma, ctx.workspace.id);
  return { settings, range: judgeRange(query, { timezone: settings.timezone, now: ctx.now }) };
}

/**
 * The page of a report's monitors (oldest first, as GET /monitors lists them), each with its account over the range.
 */
export async function uptimeReportPage(
  deps: { prisma: PrismaClient; config: Pick<Config, 'checkRegions'> },
  ctx: ServiceContext,
  query: UptimeReportQuery,
): Promise<{ data: UptimeReportRow[]; pagination: Pagination }> {
  const { prisma } = deps;
  const { settings, range } = await reportSettings(prisma, ctx, query);
  const where = await reportWhere(prisma, ctx, query);
  return listPage(
    prisma,
    query,
    (window) => [
      prisma.monitor.count({ where }),
      prisma.monitor.findMany({ where, select: monitorSelect, orderBy: byAge, ...window }),
    ],
    async (monitors) => {
      const accounts = await accountsOf(deps, ctx, monitors, settings, range);
      const policy = namedPolicy(settings);
      const iso = isoMemo();
      return monitors.map((m) => ({
        monitorId: m.id,
        monitorName: m.name,
        slaTarget: m.slaTarget,
        ...toMonitorUptime(accounts.get(m.id)!, policy, range.timezone, iso),
      }));
    },
  );
}

/** Every monitor of a report (the CSV: a file, not a page), at most MAX_CSV_ROWS lines; 400 beyond. */
export async function uptimeReportAll(
  deps: { prisma: PrismaClient; config: Pick<Config, 'checkRegions'> },
  ctx: ServiceContext,
  query: UptimeReportQuery,
): Promise<Array<{ monitorId: string; monitorName: string; periods: PeriodFigures[] }>> {
  const { prisma } = deps;
  // Neither waits for the other: the policy's timezone judges the range, the filters choose the monitors.
  const [{ settings, range }, monitors] = await Promise.all([
    reportSettings(prisma, ctx, query),
    reportWhere(prisma, ctx, query).then((where) =>
      prisma.monitor.findMany({ where, select: monitorSelect, orderBy: byAge }),
    ),
  ]);
  const lines = monitors.length * periodsOf(range).length;
  if (lines > MAX_CSV_ROWS)
    throw new ValidationError(`The report would have ${lines} lines, more than ${MAX_CSV_ROWS}`, [
      { path: 'granularity', message: 'narrow the monitors or choose a longer granularity' },
    ]);
  const accounts = await accountsOf(deps, ctx, monitors, settings, range);
  return monitors.map((m) => ({ monitorId: m.id, monitorName: m.name, periods: accounts.get(m.id)!.periods }));
}

/** The accounts of the report's monitors over the range, under the workspace policy. */
function accountsOf(
  { prisma, config }: { prisma: PrismaClient; config: Pick<Config, 'checkRegions'> },
  ctx: ServiceContext,
  monitors: ReportMonitor[],
  settings: AccountingSettings,
  range: ReportRange,
): Promise<Map<string, UptimeAccount>> {
  return accountMonitors(prisma, {
    workspaceId: ctx.workspace.id,
    monitors: monitors.map((m) => ({ ...m, regions: monitorRegions(config.checkRegions, m) })),
    ...range,
    policy: settings,
  });
}
