import type { Config, Pagination, PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { uptimeReportPage, type UptimeReportQuery } from './uptime-report.js';
import type { UptimeReportRow } from './uptime-record.js';

/** GET /reports/uptime (JSON): a page of the matching monitors, each with its periods under the workspace policy. */
export async function listUptimeReport(
  deps: { prisma: PrismaClient; config: Pick<Config, 'checkRegions'> },
  { ctx, input: query }: { ctx: ServiceContext; input: UptimeReportQuery },
): Promise<{ data: UptimeReportRow[]; pagination: Pagination }> {
  return uptimeReportPage(deps, ctx, query);
}
