/** What `withTimeout` rejects with when no `onTimeout` is given. */
export class TimeoutError extends Error {
  constructor(readonly ms: number) {
    super(`timed out after ${ms} ms`);
    this.name = 'TimeoutError';
  }
}

/**
 * `promise`, or a rejection with `onTimeout()` once `ms` have passed (a negative `ms` counts as 0). For calls that
 * take no AbortSignal (a DNS lookup, a Prisma query, a Redis command): the call itself keeps running and its late
 * outcome, a rejection included, is ignored. The timer does not keep the process alive on its own.
 */
export function withTimeout<T>(
  promise: Promise<T>,
  ms: number,
  onTimeout: () => Error = () => new TimeoutError(ms),
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(onTimeout()), Math.max(0, ms));
    timer.unref();
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}
