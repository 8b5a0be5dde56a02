import { describe, expect, it } from '@jest/globals';
import { TimeoutError, withTimeout } from './with-timeout.js';

const after = <T>(ms: number, value: T, fail = false) =>
  new Promise<T>((resolve, reject) => setTimeout(() => (fail ? reject(value) : resolve(value)), ms));

describe('withTimeout', () => {
  it('passes the outcome through when it comes in time', async () => {
    await expect(withTimeout(after(5, 'v'), 1000)).resolves.toBe('v');
    const err = new Error('boom');
    await expect(withTimeout(after(5, err, true), 1000)).rejects.toBe(err);
  });

  it('rejects with a TimeoutError, or with what onTimeout makes, once the time is up', async () => {
    const late = withTimeout(after(200, 'v'), 10);
    await expect(late).rejects.toBeInstanceOf(TimeoutError);
    await expect(late).rejects.toThrow('timed out after 10 ms');
    const custom = new Error('custom');
    await expect(withTimeout(after(200, 'v'), 10, () => custom)).rejects.toBe(custom);
    // No time left at all (a probe's budget already spent) is an immediate timeout, not an error of setTimeout.
    await expect(withTimeout(after(200, 'v'), -5)).rejects.toBeInstanceOf(TimeoutError);
  });

  it('ignores a late rejection (no unhandled rejection after the timeout)', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      await expect(withTimeout(after(20, new Error('late'), true), 5)).rejects.toBeInstanceOf(TimeoutError);
      await after(40, null);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
