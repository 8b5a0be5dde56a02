/**
 * Uptime accounting (docs/decisions.md, "Uptime accounting"): the one function every uptime figure comes from (the
 * reports API, the monthly mail, status page bars and badges, the console). Pure: it takes a monitor's timeline as
 * spans of instants, the workspace's policy and the periods to report, and answers per period the seconds spent in
 * each state. Time-based, per second: second `s` (the instant s * 1000 ms up to the next) is in a span [from, to)
 * when from <= s * 1000 < to, so a span covers the seconds from ceil(from / 1000) up to ceil(to / 1000), and each
 * second is in exactly one state by precedence noData > maintenance > down > degraded > up.
 */

/** How the workspace counts what is neither plainly up nor down (`GET /settings/accounting`). */
export interface AccountingPolicy {
  maintenance: 'excluded' | 'up' | 'down';
  degraded: 'up' | 'down';
  noData: 'excluded' | 'up' | 'down';
}

export const DEFAULT_ACCOUNTING_POLICY: Readonly<AccountingPolicy> = {
  maintenance: 'excluded',
  degraded: 'up',
  noData: 'excluded',
};

/** Instants in ms since the epoch; `to` null: still going. Half-open: [from, to). */
export interface Span {
  from: number;
  to: number | null;
}

/** What happened to one monitor, as spans (each list in any order, overlaps allowed). */
export interface UptimeTimeline {
  /** No data before it. */
  createdAt: number;
  /** Enabled false: no data. */
  paused: readonly Span[];
  /** Slots no region could check (`missed`): no data. */
  missed: readonly Span[];
  /** Maintenance windows covering the monitor's component while in progress. */
  maintenance: readonly Span[];
  /** Down: each monitor incident from its down start to its resolvedAt (manual incidents are not here). */
  incidents: ReadonlyArray<Span & { id: string }>;
  /** The monitor's results degraded (or failing without an incident). */
  degraded: readonly Span[];
}

/** A period to report, [from, to) in ms; whole seconds (callers round instants up: periodsOf, parseReportRange). */
export interface ReportPeriod {
  from: number;
  to: number;
}

export interface PeriodFigures {
  from: number;
  to: number;
  /** Seconds counted as up / countedSeconds * 100, truncated to 4 decimals; null when nothing is counted. */
  uptimePercent: number | null;
  /** Seconds the policy does not exclude. */
  countedSeconds: number;
  upSeconds: number;
  degradedSeconds: number;
  downSeconds: number;
  maintenanceSeconds: number;
  noDataSeconds: number;
  /** Incidents with at least one second of their down span in the period, by down start. */
  incidents: string[];
  /** With an SLA target only. */
  slaMet?: boolean | null;
  errorBudgetSeconds?: number;
  errorBudgetRemainingSeconds?: number;
}

export interface UptimeAccount {
  periods: PeriodFigures[];
  /** The periods together (from the first's start to the last's end), incidents once each. */
  total: PeriodFigures;
}

/** The states by precedence: a second is in the first whose spans cover it, else up. */
const STATES = ['noData', 'maintenance', 'down', 'degraded'] as const;
type State = (typeof STATES)[number] | 'up';
const UP = STATES.length;

/** Second s is in [from, to) iff ceil(from / 1000) <= s < ceil(to / 1000). */
const sec = (ms: number) => Math.ceil(ms / 1000);

/**
 * The seconds of each period in each state, the policy's counted and up seconds, the incidents touching it and, with
 * `slaTarget` (90 to 99.9999), the error budget. Periods must be in order and not overlap (periodsOf's are).
 */
export function accountUptime(
  timeline: UptimeTimeline,
  options: { policy: AccountingPolicy; periods: readonly ReportPeriod[]; slaTarget?: number | null },
): UptimeAccount {
  const { policy, periods } = options;
  const slaTarget = options.slaTarget ?? null;
  const segments = stateSegments(timeline);
  const seconds = periods.map(() => [0, 0, 0, 0, 0]);
  // Both in order: one walk over the segments for all the periods.
  let k = 0;
  periods.forEach((p, i) => {
    const a = sec(p.from);
    const b = sec(p.to);
    while (k < segments.length && segments[k]!.to <= a) k++;
    for (let j = k; j < segments.length && segments[j]!.from < b; j++) {
      const s = segments[j]!;
      const overlap = Math.min(b, s.to) - Math.max(a, s.from);
      if (overlap > 0) seconds[i]![s.state]! += overlap;
    }
  });
  const incidents = timeline.incidents
    .map((x) => ({ id: x.id, from: sec(x.from), to: x.to === null ? Infinity : sec(x.to) }))
    .filter((x) => x.to > x.from)
    .sort((x, y) => x.from - y.from || (x.id < y.id ? -1 : 1));
  const touching = (a: number, b: number) => incidents.filter((x) => x.from < b && x.to > a).map((x) => x.id);
  const out = periods.map((p, i) => figures(p, seconds[i]!, touching(sec(p.from), sec(p.to)), policy, slaTarget));
  const sum = [0, 0, 0, 0, 0];
  for (const s of seconds) for (let j = 0; j < sum.length; j++) sum[j]! += s[j]!;
  const whole = periods.length ? { from: periods[0]!.from, to: periods[periods.length - 1]!.to } : { from: 0, to: 0 };
  const total = figures(whole, sum, periods.length ? touching(sec(whole.from), sec(whole.to)) : [], policy, slaTarget);
  return { periods: out, total };
}

/** The timeline as consecutive segments of one state each, in whole seconds, from the epoch on. */
function stateSegments(t: UptimeTimeline): Array<{ from: number; to: number; state: number }> {
  // Boundaries as plain numbers, second * 16 + state * 2 + (1 where a span starts, 0 where it ends): a typed array
  // sorts them without a comparator or an object per boundary (a report counts thousands of monitors at once).
  const keys: number[] = [];
  const add = (state: number, spans: readonly Span[]) => {
    for (const s of spans) {
      const from = sec(s.from);
      const to = s.to === null ? Infinity : sec(s.to);
      if (to <= from) continue;
      keys.push(from * 16 + state * 2 + 1);
      if (to !== Infinity) keys.push(to * 16 + state * 2);
    }
  };
  // No data before creation: open from the start of time.
  const open = [1, 0, 0, 0];
  keys.push(sec(t.createdAt) * 16);
  add(0, t.paused);
  add(0, t.missed);
  add(1, t.maintenance);
  add(2, t.incidents);
  add(3, t.degraded);
  const sorted = Float64Array.from(keys).sort();
  const current = () => {
    for (let k = 0; k < open.length; k++) if (open[k]! > 0) return k;
    return UP;
  };
  const out: Array<{ from: number; to: number; state: number }> = [];
  let at = -Infinity;
  for (let i = 0; i < sorted.length;) {
    const next = Math.floor(sorted[i]! / 16);
    if (next > at) {
      push(out, at, next, current());
      at = next;
    }
    for (; i < sorted.length && Math.floor(sorted[i]! / 16) === next; i++) {
      const code = sorted[i]! - next * 16;
      open[code >> 1]! += code & 1 ? 1 : -1;
    }
  }
  push(out, at, Infinity, current());
  return out;
}

function push(out: Array<{ from: number; to: number; state: number }>, from: number, to: number, state: number) {
  if (to <= from) return;
  const last = out[out.length - 1];
  if (last && last.state === state && last.to === from) last.to = to;
  else out.push({ from, to, state });
}

/** How the policy counts a second of each state: not at all (excluded), as up, or as not up. */
function countedAs(policy: AccountingPolicy): Record<State, 'excluded' | 'up' | 'down'> {
  return { noData: policy.noData, maintenance: policy.maintenance, down: 'down', degraded: policy.degraded, up: 'up' };
}

/** The seconds the policy counts, and those it counts as up, of seconds by state. */
function countUnder(policy: AccountingPolicy, byState: Record<State, number>): { counted: number; countedUp: number } {
  const as = countedAs(policy);
  let counted = 0;
  let countedUp = 0;
  for (const state of [...STATES, 'up'] as const) {
    if (as[state] === 'excluded') continue;
    counted += byState[state];
    if (as[state] === 'up') countedUp += byState[state];
  }
  return { counted, countedUp };
}

/**
 * Several accounts' figures counted as one (a status page's overall uptime over its components): their seconds in each
 * state summed, then counted under the policy exactly as one account's are. Null when nothing is counted.
 */
export function pooledUptimePercent(all: readonly PeriodFigures[], policy: AccountingPolicy): number | null {
  const sum = (pick: (f: PeriodFigures) => number) => all.reduce((n, f) => n + pick(f), 0);
  const { counted, countedUp } = countUnder(policy, {
    noData: sum((f) => f.noDataSeconds),
    maintenance: sum((f) => f.maintenanceSeconds),
    down: sum((f) => f.downSeconds),
    degraded: sum((f) => f.degradedSeconds),
    up: sum((f) => f.upSeconds),
  });
  return uptimePercentOf(countedUp, counted);
}

function figures(
  period: ReportPeriod,
  seconds: readonly number[],
  incidents: string[],
  policy: AccountingPolicy,
  slaTarget: number | null,
): PeriodFigures {
  const [noData, maintenance, down, degraded, up] = seconds as [number, number, number, number, number];
  const { counted, countedUp } = countUnder(policy, { noData, maintenance, down, degraded, up });
  const out: PeriodFigures = {
    from: period.from,
    to: period.to,
    uptimePercent: uptimePercentOf(countedUp, counted),
    countedSeconds: counted,
    upSeconds: up,
    degradedSeconds: degraded,
    downSeconds: down,
    maintenanceSeconds: maintenance,
    noDataSeconds: noData,
    incidents,
  };
  if (slaTarget !== null) Object.assign(out, errorBudget(counted, counted - countedUp, slaTarget));
  return out;
}

/** up / counted * 100, truncated to 4 decimals (99.99996% is 99.9999%, never 100%); null when nothing is counted. */
export function uptimePercentOf(up: number, counted: number): number | null {
  if (counted <= 0) return null;
  return Math.floor((up * 1_000_000) / counted) / 10_000;
}

/**
 * The error budget of a period with an SLA target (90 to 99.9999, so at most 4 decimals, taken in ten-thousandths to
 * stay exact): the seconds that may be counted not up, countedSeconds * (100 - slaTarget) / 100, truncated to
 * milliseconds; what remains of it after the seconds counted not up (negative once overspent); and whether the
 * target was met (null when nothing is counted).
 */
export function errorBudget(
  counted: number,
  countedNotUp: number,
  slaTarget: number,
): Pick<PeriodFigures, 'slaMet' | 'errorBudgetSeconds' | 'errorBudgetRemainingSeconds'> {
  const allowedParts = 1_000_000 - Math.round(slaTarget * 10_000); // per million of counted seconds
  const budgetMs = Math.floor((counted * allowedParts) / 1000);
  return {
    slaMet: counted > 0 ? countedNotUp * 1_000_000 <= counted * allowedParts : null,
    errorBudgetSeconds: budgetMs / 1000,
    errorBudgetRemainingSeconds: (budgetMs - countedNotUp * 1000) / 1000,
  };
}
