import { describe, expect, it } from '@jest/globals';
import { warmUpHttpProbe } from './warm-up.js';

describe('warmUpHttpProbe', () => {
  it('runs the checks asked for through the http probe against its own loopback server, all up', async () => {
    const report = await warmUpHttpProbe(120);
    expect(report).toEqual({ checks: 120, up: 120, ms: expect.any(Number), cpuMs: expect.any(Number) });
    expect(report.cpuMs).toBeGreaterThan(0);
  });

  it('runs fewer checks than its limit lets run at once', async () => {
    const report = await warmUpHttpProbe(3);
    expect(report.up).toBe(3);
  });
});
