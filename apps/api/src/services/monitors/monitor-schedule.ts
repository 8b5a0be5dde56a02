import {
  confirmNewSchedule,
  followCommittedSchedule,
  type CheckScheduler,
  type Logger,
  type PrismaClient,
  type SchedulableMonitor,
} from '@statusvane/shared';
import { logFailure } from '../best-effort.js';

/** What brings the schedulers back in line when Redis failed after a committed monitor write. */
export const SCHEDULES_RECONCILED = 'housekeeping reconciles the schedules with the database within a round';

type ScheduleDeps = { prisma: PrismaClient; scheduler: CheckScheduler; logger: Logger };

/**
 * After the commit of a monitor write (`after`: 'monitor deleted' ...): its schedulers once more from the committed
 * row (followCommittedSchedule says why); given the new row of a create, only read back and written again if one is
 * missing (confirmNewSchedule says why that is enough). A Redis failure is logged; SCHEDULES_RECONCILED.
 */
export function followSchedule(deps: ScheduleDeps, monitor: string | SchedulableMonitor, after: string): Promise<void> {
  const [monitorId, follow] =
    typeof monitor === 'string'
      ? [monitor, followCommittedSchedule(deps.scheduler, deps.prisma, monitor)]
      : [monitor.id, confirmNewSchedule(deps.scheduler, deps.prisma, monitor)];
  return follow.catch(
    logFailure(deps.logger, `${after}; schedules not confirmed`, { monitorId }, SCHEDULES_RECONCILED),
  );
}

/**
 * After the commit of a monitor write: a check at once, queued only now so that the worker reads the committed row. A
 * Redis failure is logged: the monitor is checked at its next scheduled slot.
 */
export function checkNow(
  deps: { scheduler: CheckScheduler; logger: Logger },
  monitor: Parameters<CheckScheduler['runNow']>[0],
  after: string,
): Promise<void> {
  return deps.scheduler
    .runNow(monitor)
    .catch(
      logFailure(
        deps.logger,
        `${after}; immediate check not queued`,
        { monitorId: monitor.id },
        'the monitor is checked at its next scheduled slot',
      ),
    );
}
