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

/**
 * After the commit of a monitor write (`after`: 'monitor created' ...): its schedulers once more from the committed
 * row (followCommittedSchedule says why). A Redis failure is logged; SCHEDULES_RECONCILED.
 */
export function followSchedule(
  deps: { prisma: PrismaClient; scheduler: CheckScheduler; logger: Logger },
  monitorId: string,
  after: string,
): Promise<void> {
  return followCommittedSchedule(deps.scheduler, deps.prisma, monitorId).catch(
    logFailure(deps.logger, `${after}; schedules not confirmed`, { monitorId }, SCHEDULES_RECONCILED),
  );
}

/**
 * followSchedule for a monitor just created: its schedulers are read, and written again only if one is missing
 * (confirmNewSchedule says why that is enough). A Redis failure is logged, as followSchedule's.
 */
export function confirmSchedule(
  deps: { prisma: PrismaClient; scheduler: CheckScheduler; logger: Logger },
  monitor: SchedulableMonitor,
  after: string,
): Promise<void> {
  return confirmNewSchedule(deps.scheduler, deps.prisma, monitor).catch(
    logFailure(deps.logger, `${after}; schedules not confirmed`, { monitorId: monitor.id }, SCHEDULES_RECONCILED),
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
