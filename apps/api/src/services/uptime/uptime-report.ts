import {
  accountMonitors,
  loadAccountingSettings,
  monitorRegions,
  namedPolicy,
  singleQueryValue,
  ValidationError,
  type Config,
  type Prisma,
  type PrismaClient,
  type UptimeAccount,
} from '@statusvane/shared';
import { z } from '../../openapi/zod.js';
import type { ServiceContext } from '../context.js';
import { monitorFilterWhere, withMonitorFilters } from '../monitors/list-monitors.js';
import { judgeRange, monitorIdsParam, rangeQueryShape, type ReportRange } from './report-range.js';
import { toMonitorUptime, type UptimeReportRow } from './uptime-record.js';

/** GET /reports/uptime: the range, `monitorIds`, `format`, and the filters of GET /monitors (with its pagination). */
export const uptimeReportQuerySchema = withMonitorFilters({
  ...rangeQueryShape,
  monitorIds: monitorIdsParam.optional(),
  format: singleQueryValue(z.enum(['json', 'csv']))
    .optional()
    .openapi({ description: '`csv`: answer CSV (as `Accept: text/csv` does). Default: JSON.' }),
});
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
 * The monitors of a report (the filters of GET /monitors and `monitorIds`, oldest first as GET /monitors lists them),
 * the page asked for or (`all`) every one, each with its account over the judged range.
 */
export async function uptimeReportRows(
  deps: { prisma: PrismaClient; config: Pick<Config, 'checkRegions'> },
  ctx: ServiceContext,
  query: UptimeReportQuery,
  paging: 'page' | 'all',
): Promise<{ range: ReportRange; total: number; rows: UptimeReportRow[]; accounts: Map<string, UptimeAccount> }> {
  const { prisma, config } = deps;
  const settings = await loadAccountingSettings(prisma, ctx.workspace.id);
  const range = judgeRange(query, { timezone: settings.timezone, now: ctx.now });
  const where: Prisma.MonitorWhereInput = {
    AND: [
      monitorFilterWhere(ctx.workspace.id, query),
      ...(query.monitorIds ? [{ id: { in: query.monitorIds } }] : []),
    ],
  };
  const [total, monitors] = await Promise.all([
    prisma.monitor.count({ where }),
    prisma.monitor.findMany({
      where,
      select: monitorSelect,
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      ...(paging === 'page' ? { skip: (query.page - 1) * query.perPage, take: query.perPage } : {}),
    }),
  ]);
  const accounts = await accountMonitors(prisma, {
    workspaceId: ctx.workspace.id,
    monitors: monitors.map((m: ReportMonitor) => ({ ...m, regions: monitorRegions(config.checkRegions, m) })),
    ...range,
    policy: settings,
  });
  if (paging === 'all') {
    const lines = monitors.length * (accounts.values().next().value?.periods.length ?? 0);
    if (lines > MAX_CSV_ROWS)
      throw new ValidationError(`The report would have ${lines} lines, more than ${MAX_CSV_ROWS}`, [
        { path: 'granularity', message: 'narrow the monitors or choose a longer granularity' },
      ]);
  }
  const policy = namedPolicy(settings);
  return {
    range,
    total,
    accounts,
    rows: monitors.map((m: ReportMonitor) => ({
      monitorId: m.id,
      monitorName: m.name,
      slaTarget: m.slaTarget,
      ...toMonitorUptime(accounts.get(m.id)!, policy, range.timezone),
    })),
  };
}
