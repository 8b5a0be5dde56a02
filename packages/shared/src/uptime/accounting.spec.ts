import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  accountUptime,
  pooledUptimePercent,
  DEFAULT_ACCOUNTING_POLICY,
  type AccountingPolicy,
  type PeriodFigures,
  type Span,
  type UptimeTimeline,
} from './accounting.js';
import { periodsOf, startOfLocalDate, type Granularity } from './periods.js';

const POLICIES: AccountingPolicy[] = (['excluded', 'up', 'down'] as const).flatMap((maintenance) =>
  (['up', 'down'] as const).flatMap((degraded) =>
    (['excluded', 'up', 'down'] as const).map((noData) => ({ maintenance, degraded, noData })),
  ),
);

/**
 * Windows of a few days around each daylight-saving change, holding week and month boundaries too: Berlin's spring
 * change (Sunday 29 March, 02:00 -> 03:00; Monday 30 March; 1 April) and autumn change (25 October, 03:00 -> 02:00),
 * New York's (1 November, 02:00 -> 01:00, on the month's first day; Monday 2 November), Lord Howe's half-hour changes
 * (5 April, 02:00 -> 01:30, after 1 April and before Monday 6 April; 4 October, 02:00 -> 02:30).
 */
const WINDOWS: Array<{ timezone: string; from: string; days: number }> = [
  { timezone: 'Europe/Berlin', from: '2026-03-28T00:00:00Z', days: 5 },
  { timezone: 'Europe/Berlin', from: '2026-10-24T00:00:00Z', days: 3 },
  { timezone: 'America/New_York', from: '2026-10-30T12:00:00Z', days: 4 },
  { timezone: 'Australia/Lord_Howe', from: '2026-03-31T00:00:00Z', days: 6 },
  { timezone: 'Australia/Lord_Howe', from: '2026-10-03T00:00:00Z', days: 3 },
];

// ---- The reference model: every second on its own. ----

// Jest runs a spec in a vm context, where every read of a global (`Math`, `Number`) goes through the context's
// property interceptor and costs about a microsecond: in the per-second loop below that was 90% of this file's time.
// Module bindings are read at full speed.
const { floor } = Math;
const { isNaN: notANumber } = Number;

const offsetCache = new Map<string, Map<number, number>>();
/**
 * The timezone's offset at an instant, from Intl (not the library the implementation uses), per quarter hour: every
 * transition of these zones falls on a quarter hour of UTC.
 */
function offsetMs(timezone: string, ms: number): number {
  const block = Math.floor(ms / 900_000);
  let cache = offsetCache.get(timezone);
  if (!cache) offsetCache.set(timezone, (cache = new Map()));
  let off = cache.get(block);
  if (off === undefined) {
    const at = block * 900_000;
    const parts = Object.fromEntries(
      new Intl.DateTimeFormat('en-US', {
        timeZone: timezone,
        hourCycle: 'h23',
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
      })
        .formatToParts(new Date(at))
        .map((p) => [p.type, p.value]),
    );
    off = Date.UTC(+parts.year!, +parts.month! - 1, +parts.day!, +parts.hour!, +parts.minute!, +parts.second!) - at;
    cache.set(block, off);
  }
  return off;
}

/** The calendar unit of a local day (days since the epoch in local time): the day, its ISO week's Monday, its month. */
function keysOfLocalDay(dayIndex: number): Record<Granularity, string> {
  const local = new Date(dayIndex * 86_400_000);
  const monday = dayIndex - ((local.getUTCDay() + 6) % 7);
  return {
    day: local.toISOString().slice(0, 10),
    week: new Date(monday * 86_400_000).toISOString().slice(0, 10),
    month: local.toISOString().slice(0, 7),
  };
}

type Ref = {
  from: number;
  to: number;
  counts: Record<'noData' | 'maintenance' | 'down' | 'degraded' | 'up', number>;
  incidents: Set<string>;
};

/**
 * Walks [from, to) second by second: second s is in a span when from <= s * 1000 < to; each second's state is the
 * first of noData, maintenance, down, degraded whose spans cover it, else up; seconds are grouped by local calendar
 * unit. The spans are painted on one array per state first (so each second is looked at once per state).
 */
function reference(t: UptimeTimeline, from: number, to: number, granularity: Granularity, timezone: string): Ref[] {
  const first = from / 1000;
  const n = to / 1000 - first;
  const paint = (spans: readonly Span[], onto: Uint8Array) => {
    for (const span of spans) {
      // Every second from a little before the span to a little after it is tested against the definition.
      const lo = Math.max(0, Math.floor(span.from / 1000) - first - 1);
      const hi = span.to === null ? n : Math.min(n, Math.floor(span.to / 1000) - first + 2);
      for (let i = lo; i < hi; i++) {
        const at = (first + i) * 1000;
        if (span.from <= at && (span.to === null || at < span.to)) onto[i] = 1;
      }
    }
  };
  const noData = new Uint8Array(n);
  const maintenance = new Uint8Array(n);
  const down = new Uint8Array(n);
  const degraded = new Uint8Array(n);
  paint([{ from: -Infinity, to: t.createdAt }, ...t.paused, ...t.missed], noData);
  paint(t.maintenance, maintenance);
  // Per incident, the seconds of its own down span (the periods it touches).
  const ofIncident = t.incidents.map((incident) => {
    const seconds = new Uint8Array(n);
    paint([incident], seconds);
    paint([incident], down);
    return { id: incident.id, seconds };
  });
  paint(t.degraded, degraded);
  const out: Ref[] = [];
  let current: (Ref & { key: string }) | null = null;
  let lastDay = NaN;
  const firstBlock = Math.floor(first / 900);
  const offsets = new Float64Array(Math.ceil(n / 900) + 2).fill(NaN);
  let key = '';
  for (let i = 0; i < n; i++) {
    const s = first + i;
    // The local day of the second, from the offset of its quarter hour.
    const block = floor(s / 900) - firstBlock;
    if (notANumber(offsets[block]!)) offsets[block] = offsetMs(timezone, (firstBlock + block) * 900_000);
    const day = floor((s * 1000 + offsets[block]!) / 86_400_000);
    if (day !== lastDay) {
      lastDay = day;
      key = keysOfLocalDay(day)[granularity];
    }
    if (!current || current.key !== key) {
      if (current) out.push(current);
      current = {
        key,
        from: s,
        to: s,
        counts: { noData: 0, maintenance: 0, down: 0, degraded: 0, up: 0 },
        incidents: new Set(),
      };
    }
    current.to = s + 1;
    const state = noData[i]
      ? 'noData'
      : maintenance[i]
        ? 'maintenance'
        : down[i]
          ? 'down'
          : degraded[i]
            ? 'degraded'
            : 'up';
    current.counts[state]++;
    for (const x of ofIncident) if (x.seconds[i]) current.incidents.add(x.id);
  }
  if (current) out.push(current);
  return out;
}

/** What the policy makes of the reference's counts, written out case by case. */
function referenceFigures(r: Ref, policy: AccountingPolicy) {
  let counted = 0;
  let up = 0;
  const take = (seconds: number, as: 'excluded' | 'up' | 'down') => {
    if (as === 'excluded') return;
    counted += seconds;
    if (as === 'up') up += seconds;
  };
  take(r.counts.up, 'up');
  take(r.counts.down, 'down');
  take(r.counts.degraded, policy.degraded);
  take(r.counts.maintenance, policy.maintenance);
  take(r.counts.noData, policy.noData);
  return { counted, up };
}

// ---- Random timelines. ----

function timelineArb(windowFrom: number, windowMs: number) {
  // Instants anywhere in the window and a little around it, to the millisecond.
  const instant = fc.integer({ min: windowFrom - 3_600_000, max: windowFrom + windowMs + 3_600_000 });
  const span = fc
    .tuple(instant, fc.integer({ min: 0, max: 2 * 86_400_000 }), fc.boolean())
    .map(([from, length, open]): Span => ({ from, to: open ? null : from + length }));
  // Short spans too (a missed slot, a blip of degradation), including ones shorter than a second.
  const short = fc
    .tuple(instant, fc.integer({ min: 0, max: 600_000 }))
    .map(([from, length]): Span => ({ from, to: from + length }));
  const spans = (max: number) => fc.array(fc.oneof(span, short), { maxLength: max });
  return fc.record({
    createdAt: fc.oneof(fc.constant(windowFrom - 86_400_000), instant),
    paused: spans(2),
    missed: fc.array(short, { maxLength: 6 }),
    maintenance: spans(2),
    incidents: spans(4).map((list) => list.map((s, i) => ({ ...s, id: `incident-${i}` }))),
    degraded: spans(4),
  });
}

const scenario = fc.constantFrom(...WINDOWS).chain((w) => {
  const from = Date.parse(w.from);
  const length = w.days * 86_400_000;
  const bound = fc.integer({ min: 0, max: length / 1000 }).map((s) => from + s * 1000);
  return fc.record({
    window: fc.constant(w),
    timeline: timelineArb(from, length),
    range: fc.tuple(bound, bound).filter(([a, b]) => a < b),
    granularity: fc.constantFrom<Granularity>('day', 'week', 'month'),
    slaTarget: fc.constantFrom(null, 90, 95.5, 99.9, 99.99, 99.9999),
  });
});

describe('accountUptime against a second-by-second reference', () => {
  it('agrees for random timelines, every policy, across daylight-saving changes', () => {
    fc.assert(
      fc.property(scenario, ({ window, timeline, range, granularity, slaTarget }) => {
        const [from, to] = [Math.min(...range), Math.max(...range)];
        const periods = periodsOf({ from, to, granularity, timezone: window.timezone });
        const ref = reference(timeline, from, to, granularity, window.timezone);
        expect(periods.map((p) => [p.from / 1000, p.to / 1000])).toEqual(ref.map((r) => [r.from, r.to]));
        for (const policy of POLICIES) {
          const account = accountUptime(timeline, { policy, periods, slaTarget });
          account.periods.forEach((got, i) => check(got, ref[i]!, policy, slaTarget));
          const whole: Ref = {
            from: from / 1000,
            to: to / 1000,
            counts: { noData: 0, maintenance: 0, down: 0, degraded: 0, up: 0 },
            incidents: new Set(ref.flatMap((r) => [...r.incidents])),
          };
          for (const r of ref)
            for (const k of Object.keys(whole.counts) as Array<keyof Ref['counts']>) whole.counts[k] += r.counts[k];
          check(account.total, whole, policy, slaTarget);
        }
      }),
      { numRuns: 100 },
    );
  });
});

function check(got: PeriodFigures, r: Ref, policy: AccountingPolicy, slaTarget: number | null) {
  const { counted, up } = referenceFigures(r, policy);
  expect({
    from: got.from / 1000,
    to: got.to / 1000,
    up: got.upSeconds,
    degraded: got.degradedSeconds,
    down: got.downSeconds,
    maintenance: got.maintenanceSeconds,
    noData: got.noDataSeconds,
    counted: got.countedSeconds,
    incidents: [...got.incidents].sort(),
  }).toEqual({
    from: r.from,
    to: r.to,
    up: r.counts.up,
    degraded: r.counts.degraded,
    down: r.counts.down,
    maintenance: r.counts.maintenance,
    noData: r.counts.noData,
    counted,
    incidents: [...r.incidents].sort(),
  });
  // Truncated to 4 decimals: the exact ratio is within [shown, shown + 0.0001), computed in integers.
  if (counted === 0) expect(got.uptimePercent).toBeNull();
  else {
    const shown = BigInt(Math.round(got.uptimePercent! * 10_000));
    const exact = BigInt(up) * 1_000_000n;
    expect(shown * BigInt(counted) <= exact && exact < (shown + 1n) * BigInt(counted)).toBe(true);
  }
  if (slaTarget === null) {
    expect(got.slaMet).toBeUndefined();
    return;
  }
  const budget = (counted * (100 - slaTarget)) / 100;
  expect(Math.abs(got.errorBudgetSeconds! - budget)).toBeLessThan(0.0015);
  expect(Math.abs(got.errorBudgetRemainingSeconds! - (budget - (counted - up)))).toBeLessThan(0.0015);
  const target = BigInt(Math.round(slaTarget * 10_000)); // percent in ten-thousandths
  expect(got.slaMet).toBe(counted === 0 ? null : BigInt(up) * 1_000_000n >= target * BigInt(counted));
}

describe('periodsOf', () => {
  const hours = (p: { from: number; to: number }) => (p.to - p.from) / 3_600_000;

  it('makes 23 and 25 hour days at daylight-saving changes, 23.5 on Lord Howe Island', () => {
    const day = (date: string, timezone: string) => {
      const from = startOfLocalDate(date, timezone)!;
      return periodsOf({ from, to: from + 2 * 86_400_000, granularity: 'day', timezone })[0]!;
    };
    expect(hours(day('2026-03-29', 'Europe/Berlin'))).toBe(23);
    expect(hours(day('2026-10-25', 'Europe/Berlin'))).toBe(25);
    expect(hours(day('2026-11-01', 'America/New_York'))).toBe(25);
    expect(hours(day('2026-04-05', 'Australia/Lord_Howe'))).toBe(24.5);
    expect(hours(day('2026-10-04', 'Australia/Lord_Howe'))).toBe(23.5);
  });

  it('cuts at from and to, with ISO weeks starting on Monday and calendar months', () => {
    const from = Date.parse('2026-01-28T12:00:00Z');
    const to = Date.parse('2026-03-03T00:00:00Z');
    const weeks = periodsOf({ from, to, granularity: 'week', timezone: 'UTC' });
    expect(weeks[0]).toEqual({ from, to: Date.parse('2026-02-02T00:00:00Z') });
    expect(new Date(weeks[1]!.from).getUTCDay()).toBe(1);
    expect(weeks.at(-1)!.to).toBe(to);
    const months = periodsOf({ from, to, granularity: 'month', timezone: 'Europe/Berlin' });
    expect(months.map((p) => new Date(p.from).toISOString())).toEqual([
      '2026-01-28T12:00:00.000Z',
      '2026-01-31T23:00:00.000Z',
      '2026-02-28T23:00:00.000Z',
    ]);
  });
});

const day = { from: Date.parse('2026-06-01T00:00:00Z'), to: Date.parse('2026-06-02T00:00:00Z') };
const empty: UptimeTimeline = {
  createdAt: 0,
  paused: [],
  missed: [],
  maintenance: [],
  incidents: [],
  degraded: [],
};

describe('accountUptime', () => {
  it('counts a down hour and the SLA figures of the day', () => {
    const hour = { from: day.from + 3_600_000, to: day.from + 7_200_000 };
    const { periods } = accountUptime(
      { ...empty, incidents: [{ ...hour, id: 'i1' }] },
      { policy: DEFAULT_ACCOUNTING_POLICY, periods: [day], slaTarget: 99 },
    );
    expect(periods[0]).toMatchObject({
      countedSeconds: 86_400,
      downSeconds: 3600,
      upSeconds: 82_800,
      uptimePercent: 95.8333,
      incidents: ['i1'],
      slaMet: false,
      errorBudgetSeconds: 864,
      errorBudgetRemainingSeconds: -2736,
    });
  });

  it('answers null when the policy counts nothing', () => {
    const { periods } = accountUptime(
      { ...empty, maintenance: [{ from: day.from, to: null }] },
      { policy: DEFAULT_ACCOUNTING_POLICY, periods: [day], slaTarget: 99.9 },
    );
    expect(periods[0]).toMatchObject({ countedSeconds: 0, uptimePercent: null, slaMet: null, errorBudgetSeconds: 0 });
  });
});

describe('pooledUptimePercent', () => {
  const timeline = empty;
  const hour = { from: day.from + 3_600_000, to: day.from + 7_200_000 };
  const totalOf = (t: UptimeTimeline, policy: AccountingPolicy) => accountUptime(t, { policy, periods: [day] }).total;

  it('counts several accounts as one: their seconds summed, under the same policy', () => {
    const down = totalOf({ ...timeline, incidents: [{ ...hour, id: 'i1' }] }, DEFAULT_ACCOUNTING_POLICY);
    const up = totalOf(timeline, DEFAULT_ACCOUNTING_POLICY);
    // An hour down out of two days counted.
    expect(pooledUptimePercent([down, up], DEFAULT_ACCOUNTING_POLICY)).toBe(97.9166);
    expect(pooledUptimePercent([up], DEFAULT_ACCOUNTING_POLICY)).toBe(100);
    expect(pooledUptimePercent([], DEFAULT_ACCOUNTING_POLICY)).toBeNull();
  });

  it('agrees with one account`s own figure under every policy', () => {
    const t: UptimeTimeline = {
      ...timeline,
      maintenance: [{ from: day.from, to: day.from + 1_800_000 }],
      degraded: [{ from: day.from + 10_000_000, to: day.from + 12_000_000 }],
      incidents: [{ ...hour, id: 'i1' }],
    };
    for (const policy of POLICIES) {
      const total = totalOf(t, policy);
      expect([policy, pooledUptimePercent([total], policy)]).toEqual([policy, total.uptimePercent]);
    }
  });
});
