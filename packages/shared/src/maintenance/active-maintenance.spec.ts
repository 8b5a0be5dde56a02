import { describe, expect, it } from '@jest/globals';
import { coveringWindows, maintenanceCoverage, type CoverageWindow } from './active-maintenance.js';

const A = 'aaaaaaaa-0000-4000-8000-000000000001';
const B = 'bbbbbbbb-0000-4000-8000-000000000002';
const C = 'cccccccc-0000-4000-8000-000000000003';
// Deliberately not on a minute or second boundary.
const start = Date.parse('2031-03-01T10:00:30.250Z');
const end = Date.parse('2031-03-01T11:15:45.750Z');
const win = (over: Partial<CoverageWindow> = {}): CoverageWindow => ({
  startsAt: new Date(start),
  endsAt: new Date(end),
  componentIds: [],
  ...over,
});
const at = (windows: CoverageWindow[], ms: number, ids = [A, B]) =>
  Object.fromEntries([...maintenanceCoverage(windows, ids, new Date(ms))].map(([id, d]) => [id, d.toISOString()]));

describe('maintenanceCoverage (the clock test of maintenanceUntilByComponent)', () => {
  it.each([
    ['1 ms before startsAt', start - 1, {}],
    ['exactly at startsAt', start, { [A]: new Date(end).toISOString(), [B]: new Date(end).toISOString() }],
    ['1 ms after startsAt', start + 1, { [A]: new Date(end).toISOString(), [B]: new Date(end).toISOString() }],
    ['1 ms before endsAt', end - 1, { [A]: new Date(end).toISOString(), [B]: new Date(end).toISOString() }],
    ['exactly at endsAt', end, {}],
    ['1 ms after endsAt', end + 1, {}],
  ])('a whole-workspace window, %s', (_label, ms, expected) => {
    expect(at([win()], ms)).toEqual(expected);
  });

  it('a component-scoped window covers only its components, at the same boundaries', () => {
    const scoped = [win({ componentIds: [A, C] })];
    expect(at(scoped, start - 1)).toEqual({});
    expect(at(scoped, start)).toEqual({ [A]: new Date(end).toISOString() });
    expect(at(scoped, end - 1)).toEqual({ [A]: new Date(end).toISOString() });
    expect(at(scoped, end)).toEqual({});
    // C was not asked about: it is not in the answer.
    expect(Object.keys(at(scoped, start, [B]))).toEqual([]);
  });

  it('a zero-length window (complete at startsAt) covers nothing, even at its one instant', () => {
    const zero = [win({ endsAt: new Date(start) })];
    for (const ms of [start - 1, start, start + 1]) expect(at(zero, ms)).toEqual({});
  });

  it('the latest end wins where windows overlap; one that ended hands over to the next at the same millisecond', () => {
    const first = win({ endsAt: new Date(start + 1000) });
    const longer = win({ startsAt: new Date(start + 1000), endsAt: new Date(end), componentIds: [B] });
    const early = win({ startsAt: new Date(start - 5000), endsAt: new Date(start + 500), componentIds: [A] });
    const ws = [first, longer, early];
    expect(at(ws, start + 499)).toEqual({
      [A]: new Date(start + 1000).toISOString(),
      [B]: new Date(start + 1000).toISOString(),
    });
    expect(at(ws, start + 500)).toEqual({
      [A]: new Date(start + 1000).toISOString(),
      [B]: new Date(start + 1000).toISOString(),
    });
    expect(at(ws, start + 999)).toEqual({
      [A]: new Date(start + 1000).toISOString(),
      [B]: new Date(start + 1000).toISOString(),
    });
    expect(at(ws, start + 1000)).toEqual({ [B]: new Date(end).toISOString() });
  });

  it('asks about nothing: answers nothing', () => {
    expect(maintenanceCoverage([win()], [], new Date(start)).size).toBe(0);
  });
});

describe('coveringWindows', () => {
  it('parses coveringWindowsJson: timestamps as dates, no components (each already covers its component)', () => {
    expect(coveringWindows(null)).toEqual([]);
    expect(
      coveringWindows([{ startsAt: '2026-11-29T10:00:00.000+00:00', endsAt: '2026-11-29T11:30:00.5+00:00' }]),
    ).toEqual([
      {
        startsAt: new Date('2026-11-29T10:00:00.000Z'),
        endsAt: new Date('2026-11-29T11:30:00.500Z'),
        componentIds: [],
      },
    ]);
  });
});
