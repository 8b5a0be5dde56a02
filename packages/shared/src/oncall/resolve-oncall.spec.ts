import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  instantOfWallClock,
  minutesOf,
  onCallAt,
  resolveShifts,
  WEEKDAYS,
  type LayerSpec,
  type OverrideSpec,
  type ScheduleSpec,
  type Shift,
} from './resolve-oncall.js';

const MIN = 60_000;
const at = (iso: string) => new Date(iso);

// ---------------------------------------------------------------------------------------------------------------
// The brute-force model: minute by minute, from the wall clock that Intl reads (never luxon, never the resolver's
// arithmetic). `key` is the clock's reading as minutes since 1970-01-01 00:00 of the wall; `reached` is the largest
// reading so far, so "the first instant at which the clock reads K or later" has passed exactly when reached >= K.
// ---------------------------------------------------------------------------------------------------------------
const formats = new Map<string, Intl.DateTimeFormat>();
function offsetMinutes(zone: string, t: number): number {
  let f = formats.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    });
    formats.set(zone, f);
  }
  const p = Object.fromEntries(f.formatToParts(new Date(t)).map((x) => [x.type, x.value]));
  const wall = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute));
  return Math.round((wall - Math.floor(t / MIN) * MIN) / MIN);
}

const SUNDAY_FIRST = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;

function model(spec: ScheduleSpec, from: number, to: number) {
  const scanFrom = Math.min(from, ...spec.layers.map((l) => l.startsAt.getTime())) - 2 * 86_400_000;
  const offsets = new Map<number, number>(); // per 15 minutes: every offset change of these zones falls on one
  const keyOf = (t: number) => {
    const q = Math.floor(t / (15 * MIN));
    let o = offsets.get(q);
    if (o === undefined) offsets.set(q, (o = offsetMinutes(spec.timezone, q * 15 * MIN)));
    return t / MIN + o;
  };
  const answers: Array<{ userId: string | null; layerId: string | null; overrideId: string | null }> = [];
  let reached = -Infinity;
  for (let t = scanFrom; t < to; t += MIN) {
    reached = Math.max(reached, keyOf(t));
    if (t < from) continue;
    const override = spec.overrides.filter((o) => o.startsAt.getTime() <= t && t < o.endsAt.getTime()).at(-1);
    if (override) {
      answers.push({ userId: override.userId, layerId: null, overrideId: override.id });
      continue;
    }
    let answer: (typeof answers)[number] = { userId: null, layerId: null, overrideId: null };
    for (let l = spec.layers.length - 1; l >= 0; l--) {
      const user = layerAt(spec.layers[l]!, t, reached, keyOf);
      if (user !== null) {
        answer = { userId: user, layerId: spec.layers[l]!.id, overrideId: null };
        break;
      }
    }
    answers.push(answer);
  }
  return answers;
}

function layerAt(layer: LayerSpec, t: number, reached: number, keyOf: (t: number) => number): string | null {
  const start = layer.startsAt.getTime();
  if (t < start) return null;
  let period: number;
  if (layer.rotation.unit === 'hours') period = Math.floor((t - start) / (layer.rotation.every * 60 * MIN));
  else {
    const len = layer.rotation.every * (layer.rotation.unit === 'weeks' ? 7 : 1) * 1440;
    const day0 = Math.floor(keyOf(start) / 1440) * 1440;
    period = Math.max(0, Math.floor((reached - minutesOf(layer.handoffTime)! - day0) / len));
  }
  if (layer.restrictions?.length) {
    const today = Math.floor(reached / 1440);
    const inside = layer.restrictions.some((r) =>
      [today, today - 1].some((day) => {
        const weekday = SUNDAY_FIRST[new Date(day * 86_400_000).getUTCDay()]!;
        if (!r.days.includes(weekday)) return false;
        const a = minutesOf(r.from)!;
        const b = minutesOf(r.to)!;
        const opens = day * 1440 + a;
        const closes = (b > a ? day : day + 1) * 1440 + b;
        return reached >= opens && reached < closes;
      }),
    );
    if (!inside) return null;
  }
  return layer.members[period % layer.members.length]!;
}

// ---------------------------------------------------------------------------------------------------------------
// Random schedules around the daylight-saving changes of three zones (Lord Howe moves by 30 minutes).
// ---------------------------------------------------------------------------------------------------------------
const TRANSITIONS: Record<string, string[]> = {
  'Europe/Berlin': ['2026-03-29T01:00:00Z', '2026-10-25T01:00:00Z'],
  'America/New_York': ['2026-03-08T07:00:00Z', '2026-11-01T06:00:00Z'],
  'Australia/Lord_Howe': ['2026-04-04T15:00:00Z', '2026-10-03T15:30:00Z'],
};
const USERS = ['ann', 'bob', 'cat', 'dan', 'eve'];
// Times near the changes (01:30, 02:00, 02:15, 02:30, 03:00 are skipped or repeated somewhere), and any other.
const hhmm = fc.oneof(
  fc.constantFrom('00:00', '01:30', '02:00', '02:15', '02:30', '03:00', '09:00', '23:30'),
  fc
    .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
    .map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`),
);
const restriction = fc.record({
  days: fc.uniqueArray(fc.constantFrom(...WEEKDAYS), { minLength: 1, maxLength: 7 }),
  from: hhmm,
  to: hhmm,
});
const rotation = fc.oneof(
  fc.record({ every: fc.integer({ min: 1, max: 30 }), unit: fc.constant('hours' as const) }),
  fc.record({ every: fc.integer({ min: 1, max: 3 }), unit: fc.constant('days' as const) }),
  fc.record({ every: fc.integer({ min: 1, max: 2 }), unit: fc.constant('weeks' as const) }),
);
const RANGE_MINUTES = 4 * 1440;

const scenario = fc
  .record({
    zone: fc.constantFrom(...Object.keys(TRANSITIONS)),
    which: fc.integer({ min: 0, max: 1 }),
    lead: fc.integer({ min: 0, max: 3 * 1440 }),
    layers: fc.array(
      fc.record({
        startBefore: fc.integer({ min: -2 * 1440, max: 10 * 1440 }),
        rotation,
        handoffTime: hhmm,
        members: fc.array(fc.constantFrom(...USERS), { minLength: 1, maxLength: 4 }),
        restrictions: fc.oneof(fc.constant([]), fc.array(restriction, { minLength: 1, maxLength: 2 })),
      }),
      { minLength: 1, maxLength: 3 },
    ),
    overrides: fc.array(
      fc.record({
        start: fc.integer({ min: -600, max: RANGE_MINUTES }),
        length: fc.integer({ min: 1, max: 2 * 1440 }),
        userId: fc.constantFrom(...USERS),
      }),
      { maxLength: 3 },
    ),
  })
  .map((s) => {
    const from = Date.parse(TRANSITIONS[s.zone]![s.which]!) - s.lead * MIN;
    const spec: ScheduleSpec = {
      timezone: s.zone,
      layers: s.layers.map((l, i): LayerSpec => ({
        id: `layer${i}`,
        name: `Layer ${i}`,
        startsAt: new Date(from - l.startBefore * MIN),
        rotation: l.rotation,
        handoffTime: l.handoffTime,
        members: l.members,
        restrictions: l.restrictions,
      })),
      overrides: s.overrides.map((o, i): OverrideSpec => ({
        id: `override${i}`,
        userId: o.userId,
        startsAt: new Date(from + o.start * MIN),
        endsAt: new Date(from + (o.start + o.length) * MIN),
      })),
    };
    return { spec, from, to: from + RANGE_MINUTES * MIN };
  });

function answerAt(shifts: Shift[], t: number) {
  const s = shifts.find((x) => x.from.getTime() <= t && t < x.to.getTime());
  return s ? { userId: s.userId, layerId: s.layerId, overrideId: s.overrideId } : undefined;
}

describe('resolveShifts against a minute-by-minute model', () => {
  it('agrees at every minute, with contiguous shifts whose neighbours differ', () => {
    fc.assert(
      fc.property(scenario, ({ spec, from, to }) => {
        const shifts = resolveShifts(spec, new Date(from), new Date(to));
        expect(shifts[0]!.from.getTime()).toBe(from);
        expect(shifts.at(-1)!.to.getTime()).toBe(to);
        for (let i = 1; i < shifts.length; i++) {
          expect(shifts[i]!.from.getTime()).toBe(shifts[i - 1]!.to.getTime());
          const [a, b] = [shifts[i - 1]!, shifts[i]!];
          expect(a.userId === b.userId && a.layerId === b.layerId && a.overrideId === b.overrideId).toBe(false);
        }
        const expected = model(spec, from, to);
        for (let m = 0; m < expected.length; m++) {
          const t = from + m * MIN;
          const got = answerAt(shifts, t);
          if (JSON.stringify(got) !== JSON.stringify(expected[m])) {
            throw new Error(
              `at ${new Date(t).toISOString()}: got ${JSON.stringify(got)}, model ${JSON.stringify(expected[m])}`,
            );
          }
        }
      }),
      { numRuns: 100 },
    );
  });

  it('onCallAt gives the shift that holds the instant', () => {
    fc.assert(
      fc.property(scenario, fc.integer({ min: 0, max: RANGE_MINUTES - 1 }), ({ spec, from, to }, minute) => {
        const t = from + minute * MIN;
        const now = onCallAt(spec, new Date(t));
        expect({ userId: now.userId, layerId: now.layerId, overrideId: now.overrideId }).toEqual(
          model(spec, t, t + MIN)[0],
        );
        const shifts = resolveShifts(spec, new Date(from), new Date(to));
        const inRange = shifts.find((s) => s.from.getTime() <= t && t < s.to.getTime())!;
        if (inRange.from.getTime() > from) expect(now.from).toEqual(inRange.from);
        if (inRange.to.getTime() < to) expect(now.to).toEqual(inRange.to);
      }),
      { numRuns: 25 },
    );
  });
});

describe('resolveShifts, worked examples', () => {
  const weekly = (over: Partial<LayerSpec> = {}): LayerSpec => ({
    id: 'l',
    name: 'Primary',
    startsAt: at('2026-03-23T08:00:00Z'), // Monday 09:00 in Berlin (CET)
    rotation: { every: 1, unit: 'weeks' },
    handoffTime: '09:00',
    members: ['ann', 'bob'],
    ...over,
  });

  it('hands a weekly rotation off at 09:00 on the wall clock across the spring change', () => {
    const spec: ScheduleSpec = { timezone: 'Europe/Berlin', layers: [weekly()], overrides: [] };
    const shifts = resolveShifts(spec, at('2026-03-23T08:00:00Z'), at('2026-04-13T07:00:00Z'));
    // After 29 March Berlin is UTC+2: 09:00 is 07:00Z.
    expect(shifts.map((s) => [s.userId, s.from.toISOString()])).toEqual([
      ['ann', '2026-03-23T08:00:00.000Z'],
      ['bob', '2026-03-30T07:00:00.000Z'],
      ['ann', '2026-04-06T07:00:00.000Z'],
    ]);
  });

  it('moves hourly rotations by elapsed time', () => {
    const spec: ScheduleSpec = {
      timezone: 'America/New_York',
      layers: [weekly({ startsAt: at('2026-03-08T05:00:00Z'), rotation: { every: 2, unit: 'hours' } })],
      overrides: [],
    };
    const shifts = resolveShifts(spec, at('2026-03-08T05:00:00Z'), at('2026-03-08T11:00:00Z'));
    expect(shifts.map((s) => s.from.toISOString().slice(11, 16))).toEqual(['05:00', '07:00', '09:00']);
  });

  it('takes 02:30 on the night Berlin skips it as 03:00, and the first of a repeated 02:30', () => {
    const daily = (startsAt: string) => ({
      timezone: 'Europe/Berlin',
      layers: [weekly({ startsAt: at(startsAt), rotation: { every: 1, unit: 'days' }, handoffTime: '02:30' })],
      overrides: [],
    });
    const spring = resolveShifts(daily('2026-03-28T01:30:00Z'), at('2026-03-28T12:00:00Z'), at('2026-03-29T12:00:00Z'));
    expect(spring[1]!.from.toISOString()).toBe('2026-03-29T01:00:00.000Z'); // 03:00 CEST
    const autumn = resolveShifts(daily('2026-10-24T00:30:00Z'), at('2026-10-24T12:00:00Z'), at('2026-10-25T12:00:00Z'));
    expect(autumn[1]!.from.toISOString()).toBe('2026-10-25T00:30:00.000Z'); // 02:30 CEST, the first one
  });

  it('keeps a restriction across midnight and lets the later layer win, overrides over both', () => {
    const spec: ScheduleSpec = {
      timezone: 'Europe/Berlin',
      layers: [
        weekly({ id: 'day', members: ['ann'] }),
        weekly({ id: 'night', members: ['bob'], restrictions: [{ days: ['mon'], from: '22:00', to: '06:00' }] }),
      ],
      overrides: [{ id: 'o', userId: 'cat', startsAt: at('2026-03-23T23:00:00Z'), endsAt: at('2026-03-24T00:00:00Z') }],
    };
    const shifts = resolveShifts(spec, at('2026-03-23T20:00:00Z'), at('2026-03-24T06:00:00Z'));
    expect(shifts.map((s) => [s.userId, s.from.toISOString().slice(11, 16)])).toEqual([
      ['ann', '20:00'],
      ['bob', '21:00'],
      ['cat', '23:00'],
      ['bob', '00:00'],
      ['ann', '05:00'],
    ]);
  });

  it('has nobody before the first handoff', () => {
    const spec: ScheduleSpec = { timezone: 'UTC', layers: [weekly()], overrides: [] };
    expect(onCallAt(spec, at('2026-03-20T00:00:00Z'))).toMatchObject({ userId: null, from: null });
  });
});

describe("instantOfWallClock (the console's datetime-local fields)", () => {
  it('reads a wall-clock time in the zone, a skipped one as the end of the jump, a repeated one at its first', () => {
    expect(instantOfWallClock('Europe/Berlin', '2026-07-01T09:00')?.toISOString()).toBe('2026-07-01T07:00:00.000Z');
    // 02:30 does not exist on 2026-03-29 in Berlin: the clock jumps from 02:00 to 03:00.
    expect(instantOfWallClock('Europe/Berlin', '2026-03-29T02:30')?.toISOString()).toBe('2026-03-29T01:00:00.000Z');
    // 02:30 happens twice on 2026-10-25: the first is still summer time.
    expect(instantOfWallClock('Europe/Berlin', '2026-10-25T02:30')?.toISOString()).toBe('2026-10-25T00:30:00.000Z');
    // Lord Howe moves by 30 minutes: 02:15 is skipped on 2026-10-04.
    expect(instantOfWallClock('Australia/Lord_Howe', '2026-10-04T02:15')?.toISOString()).toBe(
      '2026-10-03T15:30:00.000Z',
    );
  });

  it('refuses what is not a date and time, or not a zone', () => {
    for (const bad of ['2026-02-30T09:00', '2026-07-01 09:00', '2026-07-01T24:00', '', '2026-07-01T09:00:00'])
      expect([bad, instantOfWallClock('Europe/Berlin', bad)]).toEqual([bad, null]);
    expect(instantOfWallClock('Mars/Olympus', '2026-07-01T09:00')).toBeNull();
  });
});
