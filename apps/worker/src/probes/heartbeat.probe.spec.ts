import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { type HeartbeatInput, evaluateHeartbeat } from './heartbeat.probe.js';

const T0 = Date.parse('2025-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms);
const S = 1000;

/** interval 60 s + grace 30 s: first deadline 90 s after the last ping, then every 60 s. Monitor created at T0. */
function input(over: Partial<HeartbeatInput> & { nowMs: number }): HeartbeatInput {
  const { nowMs, ...rest } = over;
  return {
    now: at(nowMs),
    createdAt: at(0),
    intervalSeconds: 60,
    graceSeconds: 30,
    lastPingAt: null,
    lastPingFailAt: null,
    ...rest,
  };
}
const outcome = (i: HeartbeatInput) => {
  const r = evaluateHeartbeat(i).result;
  return r === null ? null : `${r.outcome}${r.reason ? `:${r.reason}` : ''}`;
};
/** Slot and next evaluation, as offsets from T0 in ms. */
const timing = (i: HeartbeatInput) => {
  const v = evaluateHeartbeat(i);
  return { slot: v.slot === null ? null : v.slot.getTime() - T0, next: v.nextEvaluationAt.getTime() - T0 };
};

describe('evaluateHeartbeat', () => {
  describe('never pinged', () => {
    it('is pending while the monitor is younger than interval + grace (inclusive), next evaluation 1 ms after', () => {
      expect(outcome(input({ nowMs: 0 }))).toBeNull();
      expect(outcome(input({ nowMs: 89 * S }))).toBeNull();
      expect(outcome(input({ nowMs: 90 * S }))).toBeNull();
      expect(timing(input({ nowMs: 10 * S }))).toEqual({ slot: null, next: 90 * S + 1 });
    });
    it('is missed 1 ms after interval + grace, one missed period per interval after that', () => {
      expect(outcome(input({ nowMs: 90 * S + 1 }))).toBe('down:heartbeat_missed');
      expect(timing(input({ nowMs: 90 * S + 1 }))).toEqual({ slot: 90 * S, next: 150 * S + 1 });
      expect(timing(input({ nowMs: 150 * S }))).toEqual({ slot: 90 * S, next: 150 * S + 1 });
      expect(timing(input({ nowMs: 150 * S + 1 }))).toEqual({ slot: 150 * S, next: 210 * S + 1 });
      expect(outcome(input({ nowMs: 10 * 86400 * S }))).toBe('down:heartbeat_missed');
    });
    it('uses the grace period', () => {
      expect(outcome(input({ nowMs: 61 * S, graceSeconds: 0 }))).toBe('down:heartbeat_missed');
      expect(outcome(input({ nowMs: 60 * S, graceSeconds: 0 }))).toBeNull();
      expect(outcome(input({ nowMs: 86400 * S + 60 * S, graceSeconds: 86400 }))).toBeNull();
    });
  });

  describe('success pings', () => {
    it('is up while the last ping is within interval + grace (inclusive), keyed by the ping', () => {
      const ping = at(100 * S);
      expect(outcome(input({ nowMs: 100 * S, lastPingAt: ping }))).toBe('up');
      expect(outcome(input({ nowMs: 190 * S, lastPingAt: ping }))).toBe('up');
      expect(timing(input({ nowMs: 150 * S, lastPingAt: ping }))).toEqual({ slot: 100 * S, next: 190 * S + 1 });
      expect(outcome(input({ nowMs: 190 * S + 1, lastPingAt: ping }))).toBe('down:heartbeat_missed');
    });
    it('a daily job: the first missed run is one failure at ping + interval + grace, the second one a day later', () => {
      const day = 86400;
      const ping = at(0);
      const daily = (nowMs: number) =>
        timing(input({ nowMs, lastPingAt: ping, intervalSeconds: day, graceSeconds: 3600 }));
      expect(daily((day + 3600) * S)).toEqual({ slot: 0, next: (day + 3600) * S + 1 });
      expect(daily((day + 3600) * S + 1)).toEqual({ slot: (day + 3600) * S, next: (2 * day + 3600) * S + 1 });
      expect(daily((2 * day + 3600) * S + 1)).toEqual({ slot: (2 * day + 3600) * S, next: (3 * day + 3600) * S + 1 });
    });
    it('is up right after creation when a ping arrived early', () => {
      expect(outcome(input({ nowMs: 5 * S, lastPingAt: at(1 * S) }))).toBe('up');
    });
    it('treats a ping from the future (clock skew) as fresh', () => {
      expect(outcome(input({ nowMs: 100 * S, lastPingAt: at(105 * S) }))).toBe('up');
    });
    it('returns the ProbeResult shape with null timings', () => {
      expect(evaluateHeartbeat(input({ nowMs: 10 * S, lastPingAt: at(5 * S) })).result).toEqual({
        outcome: 'up',
        reason: null,
        responseMs: null,
        statusCode: null,
        phases: { dnsMs: null, connectMs: null, tlsMs: null, waitingMs: null },
      });
      expect(evaluateHeartbeat(input({ nowMs: 1000 * S })).result).toEqual({
        outcome: 'down',
        reason: 'heartbeat_missed',
        responseMs: null,
        statusCode: null,
        phases: { dnsMs: null, connectMs: null, tlsMs: null, waitingMs: null },
      });
    });
  });

  describe('fail pings', () => {
    it('a fail ping with no success ping is down fail_ping, even while young, keyed by the fail ping', () => {
      expect(outcome(input({ nowMs: 1 * S, lastPingFailAt: at(0) }))).toBe('down:fail_ping');
      expect(timing(input({ nowMs: 1 * S, lastPingFailAt: at(500) }))).toEqual({ slot: 500, next: 500 + 90 * S + 1 });
    });
    it('a fail ping after the last success is down fail_ping, even if the success is fresh', () => {
      expect(outcome(input({ nowMs: 20 * S, lastPingAt: at(10 * S), lastPingFailAt: at(10 * S + 1) }))).toBe(
        'down:fail_ping',
      );
    });
    it('a success ping after the last fail clears it', () => {
      expect(outcome(input({ nowMs: 20 * S, lastPingAt: at(10 * S + 1), lastPingFailAt: at(10 * S) }))).toBe('up');
    });
    it('an exact tie goes to the success ping', () => {
      expect(outcome(input({ nowMs: 20 * S, lastPingAt: at(10 * S), lastPingFailAt: at(10 * S) }))).toBe('up');
    });
    it('an old fail followed by an old success is missed, not fail_ping', () => {
      expect(outcome(input({ nowMs: 1000 * S, lastPingAt: at(20 * S), lastPingFailAt: at(10 * S) }))).toBe(
        'down:heartbeat_missed',
      );
    });
    it('silence after a fail ping is missed periods, counted from the fail ping (the job did run then)', () => {
      const i = (nowMs: number) => input({ nowMs, lastPingAt: at(10 * S), lastPingFailAt: at(20 * S) });
      expect(outcome(i(110 * S))).toBe('down:fail_ping');
      expect(outcome(i(110 * S + 1))).toBe('down:heartbeat_missed');
      expect(timing(i(110 * S + 1))).toEqual({ slot: 110 * S, next: 170 * S + 1 });
    });
  });

  it('every verdict is keyed so that one ping or one missed period gives one result (property)', () => {
    const opt = fc.option(fc.integer({ min: 0, max: 10_000_000 }), { nil: null });
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.integer({ min: 60, max: 86400 }),
        fc.integer({ min: 0, max: 86400 }),
        opt,
        opt,
        (nowMs, interval, grace, okMs, failMs) => {
          const i = {
            now: at(nowMs),
            createdAt: at(0),
            intervalSeconds: interval,
            graceSeconds: grace,
            lastPingAt: okMs === null ? null : at(okMs),
            lastPingFailAt: failMs === null ? null : at(failMs),
          };
          const v = evaluateHeartbeat(i);
          const I = interval * 1000;
          const G = grace * 1000;
          const failedLast = failMs !== null && (okMs === null || failMs > okMs);
          const last = failedLast ? failMs : okMs;
          const anchor = last ?? 0;
          let expected: string | null;
          let slot: number | null;
          if (nowMs - anchor <= I + G) {
            expected = last === null ? null : failedLast ? 'down:fail_ping' : 'up';
            slot = last;
            expect(v.nextEvaluationAt.getTime() - T0).toBe(anchor + G + I + 1);
          } else {
            expected = 'down:heartbeat_missed';
            // The latest deadline passed: anchor + G + k*I < now <= anchor + G + (k+1)*I.
            slot = v.slot!.getTime() - T0;
            const k = (slot - anchor - G) / I;
            expect(Number.isInteger(k) && k >= 1).toBe(true);
            expect(slot).toBeLessThan(nowMs);
            expect(slot + I).toBeGreaterThanOrEqual(nowMs);
            expect(v.nextEvaluationAt.getTime() - T0).toBe(slot + I + 1);
          }
          const r = v.result;
          expect(r === null ? null : `${r.outcome}${r.reason ? `:${r.reason}` : ''}`).toBe(expected);
          expect(v.slot === null ? null : v.slot.getTime() - T0).toBe(slot);
          // Evaluating later within the same period gives the same key (so it stores once).
          const later = evaluateHeartbeat({
            ...i,
            now: new Date(Math.min(v.nextEvaluationAt.getTime() - 1, i.now.getTime() + 30_000)),
          });
          expect(later.slot?.getTime() ?? null).toBe(v.slot?.getTime() ?? null);
          // And the next evaluation moves on.
          const next = evaluateHeartbeat({ ...i, now: v.nextEvaluationAt });
          expect(next.result?.reason).toBe('heartbeat_missed');
          expect(next.slot!.getTime()).toBeGreaterThan(v.slot?.getTime() ?? -Infinity);
        },
      ),
    );
  });

  describe('runs (/start) and cron schedules', () => {
    it('a run not ended within grace fails once with run_timeout, keyed by start + grace, armed at that moment', () => {
      const base = { lastPingAt: at(0), runStartedAt: at(20 * S) };
      expect(timing(input({ nowMs: 30 * S, ...base }))).toEqual({ slot: 0, next: 50 * S + 1 });
      expect(outcome(input({ nowMs: 50 * S, ...base }))).toBe('up');
      expect(outcome(input({ nowMs: 50 * S + 1, ...base }))).toBe('down:run_timeout');
      expect(timing(input({ nowMs: 60 * S, ...base }))).toEqual({ slot: 50 * S, next: 90 * S + 1 });
      // The missed deadline after it is the next event.
      expect(timing(input({ nowMs: 90 * S + 1, ...base }))).toEqual({ slot: 90 * S, next: 150 * S + 1 });
      // Never pinged before: the run's timeout still reports.
      expect(outcome(input({ nowMs: 50 * S + 1, runStartedAt: at(20 * S) }))).toBe('down:run_timeout');
    });
    it('a success that ended a run longer than maxRunSeconds fails with run_too_long', () => {
      const ping = { lastPingAt: at(10 * S), maxRunSeconds: 5 };
      expect(outcome(input({ nowMs: 11 * S, ...ping, lastRunDurationMs: 5000 }))).toBe('up');
      expect(outcome(input({ nowMs: 11 * S, ...ping, lastRunDurationMs: 5001 }))).toBe('down:run_too_long');
      expect(outcome(input({ nowMs: 11 * S, ...ping, lastRunDurationMs: null }))).toBe('up');
      expect(outcome(input({ nowMs: 11 * S, ...ping, maxRunSeconds: null, lastRunDurationMs: 9e6 }))).toBe('up');
    });
    it('a success that ended a run shorter than minRunSeconds fails with run_too_short; one that ended no run passes', () => {
      const ping = { lastPingAt: at(10 * S), minRunSeconds: 5, maxRunSeconds: 60 };
      expect(outcome(input({ nowMs: 11 * S, ...ping, lastRunDurationMs: 4999 }))).toBe('down:run_too_short');
      expect(outcome(input({ nowMs: 11 * S, ...ping, lastRunDurationMs: 5000 }))).toBe('up');
      // No /start before the success ping: no duration, nothing to judge.
      expect(outcome(input({ nowMs: 11 * S, ...ping, lastRunDurationMs: null }))).toBe('up');
      expect(outcome(input({ nowMs: 11 * S, ...ping, minRunSeconds: null, lastRunDurationMs: 1 }))).toBe('up');
      // A fail ping stays a fail_ping whatever its run took.
      expect(outcome(input({ nowMs: 11 * S, ...ping, lastPingFailAt: at(10.5 * S), lastRunDurationMs: 1 }))).toBe(
        'down:fail_ping',
      );
    });
    it('a cron schedule: deadlines at each expected time after the last ping + grace', () => {
      // Every hour at :00 UTC; pinged at 00:10; grace 30 s. Expected 01:00, missed at 01:00:30.
      const cron = { schedule: '0 * * * *', timezone: 'UTC', lastPingAt: at(10 * 60 * S) };
      expect(timing(input({ nowMs: 3600 * S, ...cron }))).toEqual({ slot: 600 * S, next: 3630 * S + 1 });
      expect(timing(input({ nowMs: 3630 * S + 1, ...cron }))).toEqual({ slot: 3630 * S, next: 7230 * S + 1 });
      expect(timing(input({ nowMs: 5 * 3600 * S, ...cron }))).toEqual({
        slot: 4 * 3600 * S + 30 * S,
        next: 5 * 3600 * S + 30 * S + 1,
      });
    });
  });
});
