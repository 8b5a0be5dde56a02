import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { type HeartbeatInput, evaluateHeartbeat } from './heartbeat.probe.js';

const T0 = Date.parse('2025-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms);
const S = 1000;

/** interval 60 s + grace 30 s: window 90 s. Monitor created at T0. */
function input(over: Partial<HeartbeatInput> & { nowMs: number }): HeartbeatInput {
  const { nowMs, ...rest } = over;
  return { now: at(nowMs), createdAt: at(0), intervalSeconds: 60, graceSeconds: 30, lastPingAt: null, lastPingFailAt: null, ...rest };
}
const outcome = (i: HeartbeatInput) => {
  const r = evaluateHeartbeat(i);
  return r === null ? null : `${r.outcome}${r.reason ? `:${r.reason}` : ''}`;
};

describe('evaluateHeartbeat', () => {
  describe('never pinged', () => {
    it('is pending while the monitor is younger than interval + grace (inclusive)', () => {
      expect(outcome(input({ nowMs: 0 }))).toBeNull();
      expect(outcome(input({ nowMs: 89 * S }))).toBeNull();
      expect(outcome(input({ nowMs: 90 * S }))).toBeNull();
    });
    it('is missed 1 ms after interval + grace', () => {
      expect(outcome(input({ nowMs: 90 * S + 1 }))).toBe('down:missed_heartbeat');
      expect(outcome(input({ nowMs: 10 * 86400 * S }))).toBe('down:missed_heartbeat');
    });
    it('uses the grace period', () => {
      expect(outcome(input({ nowMs: 61 * S, graceSeconds: 0 }))).toBe('down:missed_heartbeat');
      expect(outcome(input({ nowMs: 60 * S, graceSeconds: 0 }))).toBeNull();
      expect(outcome(input({ nowMs: 86400 * S + 60 * S, graceSeconds: 86400 }))).toBeNull();
    });
  });

  describe('success pings', () => {
    it('is up while the last ping is within interval + grace (inclusive)', () => {
      const ping = at(100 * S);
      expect(outcome(input({ nowMs: 100 * S, lastPingAt: ping }))).toBe('up');
      expect(outcome(input({ nowMs: 190 * S, lastPingAt: ping }))).toBe('up');
      expect(outcome(input({ nowMs: 190 * S + 1, lastPingAt: ping }))).toBe('down:missed_heartbeat');
    });
    it('is up right after creation when a ping arrived early', () => {
      expect(outcome(input({ nowMs: 5 * S, lastPingAt: at(1 * S) }))).toBe('up');
    });
    it('treats a ping from the future (clock skew) as fresh', () => {
      expect(outcome(input({ nowMs: 100 * S, lastPingAt: at(105 * S) }))).toBe('up');
    });
    it('returns the ProbeResult shape with null timings', () => {
      expect(evaluateHeartbeat(input({ nowMs: 10 * S, lastPingAt: at(5 * S) }))).toEqual({
        outcome: 'up',
        reason: null,
        responseMs: null,
        statusCode: null,
        phases: { dnsMs: null, connectMs: null, tlsMs: null, waitingMs: null },
      });
      expect(evaluateHeartbeat(input({ nowMs: 1000 * S }))).toEqual({
        outcome: 'down',
        reason: 'missed_heartbeat',
        responseMs: null,
        statusCode: null,
        phases: { dnsMs: null, connectMs: null, tlsMs: null, waitingMs: null },
      });
    });
  });

  describe('fail pings', () => {
    it('a fail ping with no success ping is down fail_ping, even while young', () => {
      expect(outcome(input({ nowMs: 1 * S, lastPingFailAt: at(0) }))).toBe('down:fail_ping');
      expect(outcome(input({ nowMs: 1000 * S, lastPingFailAt: at(0) }))).toBe('down:fail_ping');
    });
    it('a fail ping after the last success is down fail_ping, even if the success is fresh', () => {
      expect(outcome(input({ nowMs: 20 * S, lastPingAt: at(10 * S), lastPingFailAt: at(10 * S + 1) }))).toBe('down:fail_ping');
    });
    it('a success ping after the last fail clears it', () => {
      expect(outcome(input({ nowMs: 20 * S, lastPingAt: at(10 * S + 1), lastPingFailAt: at(10 * S) }))).toBe('up');
    });
    it('an exact tie goes to the success ping', () => {
      expect(outcome(input({ nowMs: 20 * S, lastPingAt: at(10 * S), lastPingFailAt: at(10 * S) }))).toBe('up');
    });
    it('an old fail followed by an old success is missed, not fail_ping', () => {
      expect(outcome(input({ nowMs: 1000 * S, lastPingAt: at(20 * S), lastPingFailAt: at(10 * S) }))).toBe('down:missed_heartbeat');
    });
    it('a stale fail ping stays fail_ping until a success arrives', () => {
      expect(outcome(input({ nowMs: 1000 * S, lastPingAt: at(10 * S), lastPingFailAt: at(20 * S) }))).toBe('down:fail_ping');
    });
  });

  it('matches a direct restatement of the rules (property)', () => {
    const opt = fc.option(fc.integer({ min: 0, max: 10_000_000 }), { nil: null });
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.integer({ min: 60, max: 86400 }),
        fc.integer({ min: 0, max: 86400 }),
        opt,
        opt,
        (nowMs, interval, grace, okMs, failMs) => {
          const r = evaluateHeartbeat({
            now: at(nowMs),
            createdAt: at(0),
            intervalSeconds: interval,
            graceSeconds: grace,
            lastPingAt: okMs === null ? null : at(okMs),
            lastPingFailAt: failMs === null ? null : at(failMs),
          });
          const w = (interval + grace) * 1000;
          let expected: string | null;
          if (failMs !== null && (okMs === null || failMs > okMs)) expected = 'down:fail_ping';
          else if (okMs !== null && nowMs - okMs <= w) expected = 'up';
          else if (okMs === null && failMs === null && nowMs <= w) expected = null;
          else expected = 'down:missed_heartbeat';
          expect(r === null ? null : `${r.outcome}${r.reason ? `:${r.reason}` : ''}`).toBe(expected);
        },
      ),
    );
  });
});
