import { describe, expect, it } from '@jest/globals';
import { readyAtOf } from './queue-metrics.js';

type J = Parameters<typeof readyAtOf>[0];
const job = (j: Partial<J>): J => ({ id: 'x', opts: {}, timestamp: 1_000_000, attemptsMade: 0, ...j }) as J;

describe('readyAtOf (when a waiting job became due)', () => {
  const slot = 1_795_315_310_700;
  const scheduler = 'monitor:6f1c2b9e-8d4a-4c1e-9f0b-2a3c4d5e6f70:local';

  it('a promoted scheduler job: its slot, not its creation one interval earlier (BullMQ zeroes delay on promotion)', () => {
    const promoted = job({
      id: `repeat:${scheduler}:${slot}`,
      repeatJobKey: scheduler,
      timestamp: slot - 60_000 + 48,
      delay: 0,
      opts: {},
    } as Partial<J>);
    expect(readyAtOf(promoted)).toBe(slot);
  });

  it('a one-off job: its creation time plus the delay it was added with', () => {
    expect(readyAtOf(job({ timestamp: 5_000 }))).toBe(5_000);
    expect(readyAtOf(job({ timestamp: 5_000, opts: { delay: 30_000 } }))).toBe(35_000);
  });

  it('a retry: no earlier than its last attempt plus the backoff', () => {
    const base = { timestamp: 5_000, processedOn: 100_000 };
    expect(readyAtOf(job({ ...base, attemptsMade: 1, opts: { backoff: { type: 'exponential', delay: 1000 } } }))).toBe(
      101_000,
    );
    expect(readyAtOf(job({ ...base, attemptsMade: 3, opts: { backoff: { type: 'exponential', delay: 1000 } } }))).toBe(
      104_000,
    );
    expect(readyAtOf(job({ ...base, attemptsMade: 2, opts: { backoff: 500 } }))).toBe(100_500);
    expect(readyAtOf(job({ ...base, attemptsMade: 2, opts: { backoff: { type: 'fixed', delay: 2000 } } }))).toBe(
      102_000,
    );
    expect(readyAtOf(job({ ...base, attemptsMade: 1 }))).toBe(100_000);
    // A retried scheduler job: the later of its slot and its retry time.
    expect(
      readyAtOf(
        job({
          id: `repeat:${scheduler}:${slot}`,
          repeatJobKey: scheduler,
          attemptsMade: 1,
          processedOn: slot + 10,
          opts: { backoff: { type: 'exponential', delay: 1000 } },
        }),
      ),
    ).toBe(slot + 1010);
  });
});
