import { describe, expect, it } from '@jest/globals';
import { withSummaryForRedis } from './check.processor.js';
import type { CheckOutcome } from '../checks/run-check.js';

describe('withSummaryForRedis', () => {
  const stored: CheckOutcome = {
    result: {
      outcome: 'down',
      responseMs: 12,
      statusCode: 503,
      reason: 'unexpected_status:503',
      phases: { dnsMs: null, connectMs: 1, tlsMs: null, waitingMs: 9 },
      certificate: null,
      address: '127.0.0.1',
    },
    type: 'http',
    stored: true,
    counted: true,
    opened: null,
    resolved: null,
    confirmSlot: null,
  };

  it('serialises a stored check as its outcome and whether it was stored, and keeps the whole object', () => {
    const outcome = withSummaryForRedis({ ...stored });
    // What BullMQ sends to Redis (JSON.stringify of the processor's answer).
    expect(JSON.parse(JSON.stringify(outcome))).toEqual({ outcome: 'down', stored: true });
    // What the worker's own `completed` listeners get.
    expect(outcome).toEqual(stored);
    expect(Object.keys(outcome)).toEqual(Object.keys(stored));
  });

  it('serialises a skipped check as its reason', () => {
    expect(JSON.stringify(withSummaryForRedis({ skipped: 'monitor paused' }))).toBe('{"skipped":"monitor paused"}');
  });
});
