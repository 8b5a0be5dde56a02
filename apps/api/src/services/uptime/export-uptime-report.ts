import { uptimeCsv, type Config, type PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { uptimeReportAll, type UptimeReportQuery } from './uptime-report.js';

/**
 * GET /reports/uptime as CSV (`Accept: text/csv` or `format=csv`): every matching monitor (a file to keep, not a
 * page), one line per monitor and period under the fixed header; at most MAX_CSV_ROWS lines (400 beyond).
 */
export async function exportUptimeReport(
  deps: { prisma: PrismaClient; config: Pick<Config, 'checkRegions'> },
  { ctx, input: query }: { ctx: ServiceContext; input: UptimeReportQuery },
): Promise<string> {
  return uptimeCsv(await uptimeReportAll(deps, ctx, query));
}
