/**
 * Coalesces the reads of one event-loop turn into one query (the DataLoader pattern). Every request the server parsed
 * in the same turn asks at once; the loader sends one `WHERE key IN (...)` for all of them, after the turn
 * (setImmediate), and each caller gets its own row. Nothing is cached: every call is answered by a query sent after
 * it was made, so a read is as fresh as a query of its own (a revoked token fails on the next request, as before).
 *
 * Under load this turns N round trips into one (the API's and the worker's cost is round trips, not rows); alone, a
 * call waits one setImmediate, microseconds.
 */
export interface BatchLoader<K, V> {
  load(key: K): Promise<V | undefined>;
}

export function createBatchLoader<K, V>(
  fetch: (keys: K[]) => Promise<Map<string, V>>,
  opts: { keyOf?: (key: K) => string; maxBatch?: number } = {},
): BatchLoader<K, V> {
  const keyOf = opts.keyOf ?? ((k: K) => String(k));
  const maxBatch = opts.maxBatch ?? 500;
  type Waiter = { resolve: (v: V | undefined) => void; reject: (e: unknown) => void };
  type Batch = Map<string, { key: K; waiters: Waiter[] }>;
  let pending: Batch | null = null;

  const flush = (batch: Batch) => {
    fetch(padToPowerOfTwo([...batch.values()].map((e) => e.key))).then(
      (found) => {
        for (const [k, e] of batch) for (const w of e.waiters) w.resolve(found.get(k));
      },
      (err: unknown) => {
        for (const e of batch.values()) for (const w of e.waiters) w.reject(err);
      },
    );
  };

  const current = (): Batch => {
    if (pending) return pending;
    const batch: Batch = new Map();
    pending = batch;
    setImmediate(() => {
      // Unless it was already sent for being full.
      if (pending !== batch) return;
      pending = null;
      flush(batch);
    });
    return batch;
  };

  return {
    load(key) {
      return new Promise<V | undefined>((resolve, reject) => {
        const batch = current();
        const k = keyOf(key);
        const entry = batch.get(k);
        if (entry) entry.waiters.push({ resolve, reject });
        else batch.set(k, { key, waiters: [{ resolve, reject }] });
        if (batch.size >= maxBatch) {
          pending = null;
          flush(batch);
        }
      });
    },
  };
}

/**
 * Pads a non-empty list to the next power of two by repeating its last item. Prisma compiles a query plan per
 * distinct argument shape, and an `IN` list of each new length is a new shape (about 10 ms of CPU each): padded,
 * a loader's queries take a handful of shapes instead of one per batch size. Fetches must tolerate repeated keys
 * (`IN`, `OR` and maps do).
 */
export function padToPowerOfTwo<T>(items: readonly T[]): T[] {
  const out = [...items];
  if (out.length === 0) return out;
  let size = 1;
  while (size < out.length) size *= 2;
  while (out.length < size) out.push(out[out.length - 1]!);
  return out;
}

/** One loader per client instance (each test's PrismaClient, each app's): loaders never mix databases. */
export function loaderPerClient<C extends object, K, V>(
  make: (client: C) => BatchLoader<K, V>,
): (client: C) => BatchLoader<K, V> {
  const loaders = new WeakMap<C, BatchLoader<K, V>>();
  return (client) => {
    let l = loaders.get(client);
    if (!l) loaders.set(client, (l = make(client)));
    return l;
  };
}
