import type { Job } from 'bullmq';
import { REPORT_SWEEP_JOB } from '@statusvane/shared';
import { sweepUptimeReports, type ReportMailDeps } from '../reports/monthly-report.js';

/** The monthly uptime reports: `sweep` queues the mails due and sends the waiting ones. */
export function reportProcessor(deps: ReportMailDeps & { now?: () => Date }) {
  return async (job: Job) => {
    if (job.name !== REPORT_SWEEP_JOB) throw new Error(`unknown report job ${job.name}`);
    return sweepUptimeReports(deps, (deps.now ?? (() => new Date()))());
  };
}
