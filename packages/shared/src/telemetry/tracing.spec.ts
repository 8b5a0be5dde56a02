import { describe, expect, it } from '@jest/globals';
import { traceParentOf } from './tracing.js';

describe('traceParentOf without a span', () => {
  it('makes a valid, fresh traceparent every time, across refills of its random pool', () => {
    const seen = new Set<string>();
    // 4096 random bytes give 170 traceparents (24 bytes each): 1,000 cross several refills.
    for (let i = 0; i < 1000; i++) {
      const { header, traceId } = traceParentOf(null);
      expect(header).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
      expect(header.slice(3, 35)).toBe(traceId);
      seen.add(traceId);
      seen.add(header.slice(36, 52));
    }
    expect(seen.size).toBe(2000);
  });
});
