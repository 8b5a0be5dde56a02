import { monitorRegions, type PrismaClient } from '@statusvane/shared';

/**
 * Says when this worker's checks fall behind, and what would catch up: within seconds of falling behind, then at most
 * once a minute while the scheduled checks it starts are at least BEHIND_SECONDS late or it recorded missed slots in
 * the last minute, a warning
 * `checks are N s behind; about K workers would catch up`, with the figures it came from. K is the smallest number
 * of workers, each checking as many a second as this one did over the last minute (while behind, that is its
 * capacity), that check more than are due a second in its region (from PostgreSQL: the enabled monitors' intervals).
 * More workers only help while the workers are the bottleneck: a saturated PostgreSQL stays one.
 */

/** Lateness from which the queue counts as behind: far above normal (p99 about 0.1 s), a fraction of an interval. */
export const BEHIND_SECONDS = 5;
/** At most one warning per this many ms (and the window the rates are measured over). */
export const WARN_EVERY_MS = 60_000;

export interface LagWarning {
  lagSeconds: number;
  workersNeeded: number | null;
  duePerSecond: number;
  checkedPerSecond: number;
  missedSlots: number;
}

export interface LagWatchDeps {
  /** Scheduled checks due per second in this worker's region. */
  duePerSecond(): Promise<number>;
  warn(message: string, meta: LagWarning): void;
  /** Lateness gauge of the last started check (seconds). */
  setLag(seconds: number): void;
  now?: () => number;
  /** The window and the least time between warnings (default WARN_EVERY_MS). */
  everyMs?: number;
}

/**
 * Scheduled checks due per second in `region`: each enabled monitor checked there (monitorRegions) once per
 * interval. Grouped by type, regions and interval: few groups, one query, only when a warning is due.
 */
export async function duePerSecond(
  prisma: PrismaClient,
  checkRegions: readonly string[],
  region: string,
): Promise<number> {
  const groups = await prisma.monitor.groupBy({
    by: ['type', 'regions', 'intervalSeconds'],
    where: { enabled: true },
    _count: { _all: true },
  });
  let due = 0;
  for (const g of groups)
    if (g.intervalSeconds > 0 && monitorRegions(checkRegions, g).includes(region))
      due += g._count._all / g.intervalSeconds;
  return due;
}

/** `checks are N s behind; about K workers would catch up` (the warning's text, also for the bench to find). */
export function lagMessage(w: Pick<LagWarning, 'lagSeconds' | 'workersNeeded'>): string {
  const behind = `checks are ${Math.round(w.lagSeconds)} s behind`;
  return w.workersNeeded === null
    ? `${behind}; too few figures to estimate how many workers would catch up`
    : `${behind}; about ${w.workersNeeded} workers would catch up`;
}

/** The smallest number of workers checking `checkedPerSecond` each that check more than `duePerSecond`. */
export function workersToCatchUp(duePerSecond: number, checkedPerSecond: number): number | null {
  if (!(checkedPerSecond > 0)) return null;
  return Math.max(1, Math.floor(duePerSecond / checkedPerSecond) + 1);
}

/**
 * The window is kept as six steps (of everyMs / 6): checked every step, so that a worker that falls behind says so
 * within a step, and at most once per window after that, with the rates of the last window.
 */
const STEPS = 6;

export class LagWatch {
  private readonly now: () => number;
  private readonly everyMs: number;
  /** Closed steps of the last window, oldest first. */
  private steps: Array<{ start: number; checked: number; missed: number }> = [];
  private step: { start: number; checked: number; missed: number };
  private lagMs = 0;
  private lastWarnAt = -Infinity;
  private evaluating = false;

  constructor(private readonly deps: LagWatchDeps) {
    this.now = deps.now ?? Date.now;
    this.everyMs = deps.everyMs ?? WARN_EVERY_MS;
    this.step = { start: this.now(), checked: 0, missed: 0 };
  }

  /** A scheduled check started `lagMs` after its slot. */
  started(lagMs: number): void {
    this.lagMs = lagMs;
    this.deps.setLag(lagMs / 1000);
    const now = this.now();
    if (now - this.step.start >= this.everyMs / STEPS && !this.evaluating) void this.evaluate(now);
  }

  /** A check ran (its result stored), and `missedSlots` slots were recorded as missed. */
  finished(outcome: { checked: boolean; missedSlots?: number | undefined }): void {
    if (outcome.checked) this.step.checked++;
    this.step.missed += outcome.missedSlots ?? 0;
  }

  /** Closes the current step; warns when behind (and not warned within the window). Never throws. */
  async evaluate(now = this.now()): Promise<LagWarning | null> {
    this.evaluating = true;
    try {
      this.steps.push(this.step);
      this.step = { start: now, checked: 0, missed: 0 };
      this.steps = this.steps.filter((s) => s.start >= now - this.everyMs);
      const since = this.steps[0]?.start ?? now;
      const seconds = (now - since) / 1000;
      const checked = this.steps.reduce((a, s) => a + s.checked, 0);
      const missedSlots = this.steps.reduce((a, s) => a + s.missed, 0);
      const checkedPerSecond = seconds > 0 ? checked / seconds : 0;
      const lagSeconds = this.lagMs / 1000;
      // Behind: the last check started late, or slots were missed (short intervals miss before BEHIND_SECONDS).
      if ((lagSeconds < BEHIND_SECONDS && missedSlots === 0) || now - this.lastWarnAt < this.everyMs) return null;
      this.lastWarnAt = now;
      const duePerSecond = await this.deps.duePerSecond().catch(() => NaN);
      const warning: LagWarning = {
        lagSeconds: Math.round(lagSeconds * 10) / 10,
        workersNeeded: Number.isFinite(duePerSecond) ? workersToCatchUp(duePerSecond, checkedPerSecond) : null,
        duePerSecond: Math.round(duePerSecond * 10) / 10,
        checkedPerSecond: Math.round(checkedPerSecond * 10) / 10,
        missedSlots,
      };
      this.deps.warn(lagMessage(warning), warning);
      return warning;
    } finally {
      this.evaluating = false;
    }
  }
}
