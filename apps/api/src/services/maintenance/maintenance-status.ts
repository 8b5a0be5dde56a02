import type { MaintenanceAction, MaintenanceStatus } from '@statusvane/shared';

export interface WindowTimes {
  startsAt: Date;
  endsAt: Date;
  cancelledAt: Date | null;
}

/**
 * The status of a window at `now`. Half-open interval: `in_progress` from startsAt (inclusive) to endsAt
 * (exclusive), so at the instant endsAt the window is already `completed`. Cancellation wins over the clock.
 */
export function maintenanceStatus(w: WindowTimes, now: Date): MaintenanceStatus {
  if (w.cancelledAt) return 'cancelled';
  const t = now.getTime();
  if (t < w.startsAt.getTime()) return 'scheduled';
  if (t < w.endsAt.getTime()) return 'in_progress';
  return 'completed';
}

/** What an action does from a status: change the window, change nothing (repeat of the current state), or refuse. */
export type ActionOutcome = 'apply' | 'noop' | 'conflict';

/**
 * The transition table. `start` from scheduled, `complete` from in_progress, `cancel` from scheduled or
 * in_progress; the action a window is already in (start/in_progress, complete/completed, cancel/cancelled) is a
 * no-op; every other move is a conflict (nothing leaves completed or cancelled; complete before start).
 */
export const ACTION_TABLE: Readonly<Record<MaintenanceStatus, Readonly<Record<MaintenanceAction, ActionOutcome>>>> = {
  scheduled: { start: 'apply', complete: 'conflict', cancel: 'apply' },
  in_progress: { start: 'noop', complete: 'apply', cancel: 'apply' },
  completed: { start: 'conflict', complete: 'noop', cancel: 'conflict' },
  cancelled: { start: 'conflict', complete: 'conflict', cancel: 'noop' },
};

export function actionOutcome(status: MaintenanceStatus, action: MaintenanceAction): ActionOutcome {
  return ACTION_TABLE[status][action];
}

/** True when the window is done with: its fields can no longer be edited. */
export function isFinal(status: MaintenanceStatus): boolean {
  return status === 'completed' || status === 'cancelled';
}
