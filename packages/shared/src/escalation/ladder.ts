/**
 * The escalation ladder's clock: a pure function of (policy, incident, deliveries, now). The worker uses it to
 * decide whether a step job may fire and when the next cycle starts; the API uses it for `due`, `fired`,
 * `escalating` and `elapsedMinutes`. Nothing here reads a clock, a database or a queue.
 *
 * Rules (docs/escalation.md):
 * - Steps run in `position` order; step i of cycle c is due at anchor(c) + delayMinutes(i).
 * - anchor(0) is the incident's `startedAt`. anchor(c + 1) is the time the last step of cycle c fired (its
 *   earliest delivery row in that cycle). A last step that can never fire because its `minImpact` is above the
 *   incident's impact is passed over at its due time, so then anchor(c + 1) = anchor(c) + its delay.
 *   There are 1 + repeatCount cycles (0 .. repeatCount).
 * - A step "fires" by recording its deliveries (whatever their status: a silent policy fires with every
 *   delivery `skipped`). `fired`: it has fired in some cycle; `firedAt`: the latest cycle's fire time.
 * - `due`: the step's time has come in the current cycle and its `minImpact` is at most the incident's impact.
 * - The ladder's clock stops when the incident is acknowledged or resolved: `due` is judged at that moment, so a
 *   step whose time came after the acknowledgement is not shown as due.
 * - `elapsedMinutes`: whole minutes from `startedAt` to now, or to `resolvedAt` once resolved.
 * - `escalating`: the incident is open, a policy applies, at least one step applies to its impact, and the ladder
 *   is not exhausted (the last cycle has not yet fired every step that applies).
 */

export const IMPACTS = ['none', 'minor', 'major', 'critical'] as const;
export type Impact = (typeof IMPACTS)[number];

/** `none` < `minor` < `major` < `critical`: does an incident of `impact` reach `minImpact`? */
export function impactAtLeast(impact: Impact, minImpact: Impact): boolean {
  return IMPACTS.indexOf(impact) >= IMPACTS.indexOf(minImpact);
}

export interface LadderStep {
  id: string;
  position: number;
  delayMinutes: number;
  minImpact: Impact;
}

export interface LadderPolicy {
  repeatCount: number;
  steps: readonly LadderStep[];
}

export interface LadderIncident {
  status: 'open' | 'acknowledged' | 'resolved';
  impact: Impact;
  startedAt: Date;
  acknowledgedAt: Date | null;
  resolvedAt: Date | null;
}

/** One delivery row: which step of which cycle it belongs to and when it was recorded (the step's fire time). */
export interface LadderDelivery {
  stepId: string;
  cycle: number;
  createdAt: Date;
}

export interface StepState {
  stepId: string;
  position: number;
  delayMinutes: number;
  minImpact: Impact;
  /** minImpact <= the incident's impact: the step can fire at all. */
  applies: boolean;
  /** When the step comes (or came) due in the current cycle. */
  dueAt: Date;
  due: boolean;
  fired: boolean;
  firedAt: Date | null;
  firedInCurrentCycle: boolean;
}

export interface LadderState {
  /** The cycle in progress (0 .. repeatCount). */
  cycle: number;
  /** anchor(0) .. anchor(cycle): when each cycle that has started started. */
  anchors: Date[];
  steps: StepState[];
  /** The moment the ladder is judged at: now, or when it was stopped (acknowledged / resolved). */
  clock: Date;
  /** The last cycle has fired every step that applies. */
  exhausted: boolean;
  /** No step's minImpact is reached by the incident's impact: nothing will ever fire. */
  nothingApplies: boolean;
  escalating: boolean;
  elapsedMinutes: number;
  /** The earliest due time of a step that applies and has not fired in the current cycle; null if none. */
  nextDueAt: Date | null;
}

const MINUTE = 60_000;
const addMinutes = (d: Date, minutes: number) => new Date(d.getTime() + minutes * MINUTE);
const minDate = (dates: Array<Date | null>): Date | null =>
  dates.reduce<Date | null>((min, d) => (d !== null && (min === null || d < min) ? d : min), null);

/** When the ladder stopped: the earlier of the acknowledgement and the resolution, or null while it is open. */
export function ladderStoppedAt(incident: LadderIncident): Date | null {
  if (incident.status === 'open') return null;
  return minDate([incident.acknowledgedAt, incident.resolvedAt]) ?? incident.startedAt;
}

export function elapsedMinutes(incident: Pick<LadderIncident, 'startedAt' | 'resolvedAt'>, now: Date): number {
  const end = incident.resolvedAt !== null && incident.resolvedAt < now ? incident.resolvedAt : now;
  return Math.max(0, Math.floor((end.getTime() - incident.startedAt.getTime()) / MINUTE));
}

function fireTimes(deliveries: readonly LadderDelivery[]): Map<string, Date> {
  const out = new Map<string, Date>();
  for (const d of deliveries) {
    const key = `${d.stepId}#${d.cycle}`;
    const current = out.get(key);
    if (!current || d.createdAt < current) out.set(key, d.createdAt);
  }
  return out;
}

/** Steps in ladder order (by position), without mutating the input. */
export function orderedSteps<T extends { position: number }>(steps: readonly T[]): T[] {
  return [...steps].sort((a, b) => a.position - b.position);
}

/**
 * The anchors of the cycles that have started by `clock`: anchor(0) = startedAt, then one more per cycle whose
 * predecessor's last step has fired (or was passed over for its minImpact by `clock`).
 */
export function cycleAnchors(
  policy: LadderPolicy,
  incident: LadderIncident,
  deliveries: readonly LadderDelivery[],
  clock: Date,
): Date[] {
  const anchors = [incident.startedAt];
  const steps = orderedSteps(policy.steps);
  const last = steps.at(-1);
  if (!last) return anchors;
  const fired = fireTimes(deliveries);
  for (let c = 0; c < policy.repeatCount; c++) {
    const anchor = anchors[c]!;
    const firedAt = fired.get(`${last.id}#${c}`);
    if (firedAt) {
      anchors.push(firedAt);
      continue;
    }
    const passedOverAt = addMinutes(anchor, last.delayMinutes);
    if (!impactAtLeast(incident.impact, last.minImpact) && passedOverAt <= clock) {
      anchors.push(passedOverAt);
      continue;
    }
    break;
  }
  return anchors;
}

/** The whole ladder as of `now` (see the module rules). `policy` null: no policy applies. */
export function ladderState(
  policy: LadderPolicy | null,
  incident: LadderIncident,
  deliveries: readonly LadderDelivery[],
  now: Date,
): LadderState {
  const stoppedAt = ladderStoppedAt(incident);
  const clock = stoppedAt !== null && stoppedAt < now ? stoppedAt : now;
  const elapsed = elapsedMinutes(incident, now);
  if (!policy || policy.steps.length === 0) {
    return {
      cycle: 0,
      anchors: [incident.startedAt],
      steps: [],
      clock,
      exhausted: false,
      nothingApplies: true,
      escalating: false,
      elapsedMinutes: elapsed,
      nextDueAt: null,
    };
  }

  const anchors = cycleAnchors(policy, incident, deliveries, clock);
  const cycle = anchors.length - 1;
  const anchor = anchors[cycle]!;
  const fired = fireTimes(deliveries);

  const steps: StepState[] = orderedSteps(policy.steps).map((s) => {
    const applies = impactAtLeast(incident.impact, s.minImpact);
    const dueAt = addMinutes(anchor, s.delayMinutes);
    let firedAt: Date | null = null;
    for (let c = cycle; c >= 0 && firedAt === null; c--) firedAt = fired.get(`${s.id}#${c}`) ?? null;
    // Rows of a cycle that has not started by `clock` cannot exist in a consistent history; ignore them.
    return {
      stepId: s.id,
      position: s.position,
      delayMinutes: s.delayMinutes,
      minImpact: s.minImpact,
      applies,
      dueAt,
      due: applies && dueAt <= clock,
      fired: firedAt !== null,
      firedAt,
      firedInCurrentCycle: fired.has(`${s.id}#${cycle}`),
    };
  });

  const applicable = steps.filter((s) => s.applies);
  const nothingApplies = applicable.length === 0;
  const pending = applicable.filter((s) => !s.firedInCurrentCycle);
  const exhausted = !nothingApplies && cycle === policy.repeatCount && pending.length === 0;
  const nextDueAt = minDate(pending.map((s) => s.dueAt));
  return {
    cycle,
    anchors,
    steps,
    clock,
    exhausted,
    nothingApplies,
    escalating: incident.status === 'open' && !nothingApplies && !exhausted,
    elapsedMinutes: elapsed,
    nextDueAt,
  };
}
