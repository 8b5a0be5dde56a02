import { describe, expect, it } from '@jest/globals';
import { startHousekeeping, type HousekeepingDeps } from './housekeeping.js';

describe('startHousekeeping', () => {
  it('stop resolves only once the round in flight is over', async () => {
    let release!: (value: string | null) => void;
    const gate = new Promise<string | null>((resolve) => (release = resolve));
    // A round blocked on taking its lock; null then: another worker has it, the round ends.
    const deps = { redis: { set: () => gate }, logger: { warn: () => undefined } } as unknown as HousekeepingDeps;
    const stopped = startHousekeeping(deps, 60_000)();
    let done = false;
    void stopped.then(() => (done = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(done).toBe(false);
    release(null);
    await stopped;
    expect(done).toBe(true);
  });
});
