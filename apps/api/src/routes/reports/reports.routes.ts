import { z } from '../../schemas/zod.js';
import { exportUptimeReport } from '../../services/uptime/export-uptime-report.js';
import { getMonitorUptime } from '../../services/uptime/get-monitor-uptime.js';
import { listUptimeReport } from '../../services/uptime/list-uptime-report.js';
import { rangeQueryShape } from '../../services/uptime/report-range.js';
import {
  sendUptimeReport,
  sendUptimeReportInputSchema,
  uptimeReportMailSchema,
} from '../../services/uptime/send-uptime-report.js';
import { uptimeReportQuerySchema } from '../../services/uptime/uptime-report.js';
import { monitorUptimeSchema, uptimeReportRowSchema } from '../../services/uptime/uptime-record.js';
import { defineRoute } from '../define-route.js';

const HOW =
  'Counted per second under the workspace accounting policy (GET /settings/accounting), which the answer names: each ' +
  'second is in one state by precedence noData > maintenance > down > degraded > up; `uptimePercent` = seconds ' +
  'counted as up / countedSeconds * 100, truncated to 4 decimals. Down runs from the first failing result of the ' +
  "regions that opened an incident to its resolution; manual incidents count for nothing. A monitor's `slaTarget` " +
  'adds `slaMet` and the error budget. 400 for an unknown parameter or timezone, a bad granularity or date, `from` ' +
  'not before `to`, or `from` more than 400 days back.';

export const reportRoutes = [
  defineRoute({
    method: 'get',
    path: '/monitors/{id}/uptime',
    operationId: 'getMonitorUptime',
    roles: 'read',
    tag: 'Reports',
    summary: "A monitor's uptime",
    description: `The monitor's uptime per day, ISO week or month of a timezone, cut at \`from\` and \`to\`. ${HOW}`,
    request: { query: z.object(rangeQueryShape).strict() },
    responses: { 200: { description: 'The periods and their total.', data: monitorUptimeSchema } },
    handler: (deps, { ctx, params, query }) => getMonitorUptime(deps, { ctx, input: { id: params.id, query } }),
  }),
  defineRoute({
    method: 'get',
    path: '/reports/uptime',
    operationId: 'getUptimeReport',
    roles: 'read',
    tag: 'Reports',
    summary: 'Uptime report',
    description:
      'The uptime of the monitors matching the filters of GET /monitors (and `monitorIds`), one row per monitor with ' +
      'its periods, a page at a time. With `Accept: text/csv` or `format=csv`: CSV of every matching monitor (not a ' +
      'page; at most 100,000 lines), one line per monitor and period, header `monitor_id,monitor_name,period_start,' +
      'period_end,uptime_percent,up_seconds,degraded_seconds,down_seconds,maintenance_seconds,no_data_seconds,' +
      `incidents\` (uptime empty when nothing is counted, incident ids separated by spaces). ${HOW}`,
    request: { query: uptimeReportQuerySchema },
    responses: { 200: { description: 'A page of monitors with their uptime.', page: uptimeReportRowSchema } },
    handler: (deps, { ctx, query }) => listUptimeReport(deps, { ctx, input: query }),
    csv: {
      description: 'The report as CSV (RFC 4180), the fixed header first.',
      handler: (deps, { ctx, query }) => exportUptimeReport(deps, { ctx, input: query }),
    },
  }),
  defineRoute({
    method: 'post',
    path: '/reports/uptime/send',
    operationId: 'sendUptimeReport',
    roles: 'reports:manage',
    tag: 'Reports',
    summary: 'Mail a monthly uptime report now',
    description:
      "Mails the report of `month` (in the policy's timezone: a table per monitor and the CSV attached) to the " +
      "policy's `reportRecipients`, sent by a worker within a minute. The scheduled report goes out by itself on " +
      'the 1st at 06:00 of that timezone, once per month. 400 for a month not started or more than 400 days back.',
    request: {
      body: {
        schema: sendUptimeReportInputSchema,
        examples: { lastMonth: { summary: 'October', value: { month: '2026-10' } } },
      },
    },
    idempotent: true,
    responses: {
      202: { description: 'The mail is queued.', data: uptimeReportMailSchema },
      409: {
        description: 'the accounting policy has no report recipients.',
        example: 'The accounting policy has no reportRecipients: add some with PUT /settings/accounting',
      },
    },
    handler: (deps, { ctx, body }) => sendUptimeReport(deps, { ctx, input: body }),
  }),
];
