import type { Job } from 'bullmq';
import { checkJobSchema, type Logger, type PrismaClient } from '@statusvane/shared';

export interface CheckDeps {
  prisma: PrismaClient;
  logger: Logger;
}

/** Thin processor: validates the payload at the boundary, loads the monitor, and hands it to the check runner. */
export function checkProcessor(deps: CheckDeps) {
  return async (job: Job): Promise<{ skipped?: string } | void> => {
    const payload = checkJobSchema.parse(job.data);
    const monitor = await deps.prisma.monitor.findUnique({ where: { id: payload.monitorId }, select: { id: true, enabled: true } });
    if (!monitor) return { skipped: 'monitor deleted' };
    if (!monitor.enabled) return { skipped: 'monitor paused' };
    return { skipped: 'probes not implemented yet' };
  };
}
