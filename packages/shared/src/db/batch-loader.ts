import DataLoader from 'dataloader';

/**
 * Coalesces the reads of one event-loop turn into one query (DataLoader, scheduled with setImmediate): every request
 * the server parsed in the same turn asks at once; the loader sends one `WHERE key IN (...)` for the distinct keys of
 * all of them, after the turn, and each caller gets its own row. Nothing is cached: every call is answered by a query
 * sent after it was made, so a read is as fresh as a query of its own (a revoked token fails on the next request).
 *
 * Under load this turns N round trips into one (the API's and the worker's cost is round trips, not rows); alone, a
 * call waits one setImmediate, microseconds. `fetch` answers a Map by `keyOf(key)`; a key it leaves out loads as
 * undefined, and a failed fetch rejects every caller of its batch.
 */
export interface BatchLoader<K, V> {
  load(key: K): Promise<V | undefined>;
}

export function createBatchLoader<K, V>(
  fetch: (keys: K[]) => Promise<Map<string, V>>,
  opts: {
    keyOf?: (key: K) => string;
    maxBatch?: number;
    /**
     * A call made while a query for its key is in flight joins that query instead of waiting for the next turn's.
     * Its answer may then miss a write that committed in the query's flight (milliseconds): only for reads that can
     * be that much behind (a public page's change check), never for credentials or a caller's own writes.
     */
    shareInFlight?: boolean;
    /**
     * At most this many fetches at once: a batch whose turn comes while they are all in flight waits for one to end,
     * gathering the calls made meanwhile (fewer, larger statements: a write's cost is its statement and commit).
     */
    maxInFlight?: number;
    /**
     * Pad each batch's keys to a power of two (padToPowerOfTwo), as a Prisma query needs to keep its plans few. False
     * for a fetch through a hot statement, whose one text takes any number of keys: padding would only repeat work (a
     * repeated row of an insert).
     */
    pad?: boolean;
  } = {},
): BatchLoader<K, V> {
  const keyOf = opts.keyOf ?? ((k: K) => String(k));
  const maxInFlight = opts.maxInFlight ?? Infinity;
  let running = 0;
  const waiting: Array<() => void> = [];
  const loader = new DataLoader<K, V | undefined>(
    async (keys) => {
      running++;
      try {
        const distinct = [...new Map(keys.map((k) => [keyOf(k), k])).values()];
        const found = await fetch(opts.pad === false ? distinct : padToPowerOfTwo(distinct));
        return keys.map((k) => found.get(keyOf(k)));
      } finally {
        running--;
        waiting.shift()?.();
      }
    },
    {
      cache: false,
      maxBatchSize: opts.maxBatch ?? 500,
      batchScheduleFn: (send) => {
        if (running < maxInFlight) setImmediate(send);
        else waiting.push(() => setImmediate(send));
      },
    },
  );
  if (!opts.shareInFlight) return { load: (key) => loader.load(key) };
  const inFlight = new Map<string, Promise<V | undefined>>();
  return {
    load: (key) => {
      const k = keyOf(key);
      let p = inFlight.get(k);
      if (!p) {
        p = loader.load(key).finally(() => {
          if (inFlight.get(k) === p) inFlight.delete(k);
        });
        inFlight.set(k, p);
      }
      return p;
    },
  };
}

/**
 * Group commit (docs/adr/0022-group-commit-of-creates.md): the items asked for while `maxInFlight` runs are busy wait,
 * and go to `run` together, up to `maxItems` at once; an item asked for while a run may start waits only for the end
 * of the current event-loop turn (the others asked for in it join). `run` answers one value per item, in order, from
 * one transaction. Should a run of several fail, each of its items runs again alone, so that each gets exactly the
 * outcome it would have had alone: `run` must leave nothing behind when it fails (a rolled-back transaction; writes
 * elsewhere idempotent).
 */
export function createGroupCommit<I, O>(
  run: (items: I[]) => Promise<O[]>,
  opts: { maxItems: number; maxInFlight: number },
): (item: I) => Promise<O> {
  type Waiting = { item: I; resolve: (value: O) => void; reject: (err: unknown) => void };
  const waiting: Waiting[] = [];
  let running = 0;
  let scheduled = false;
  const alone = (w: Waiting) =>
    run([w.item]).then(
      ([value]) => w.resolve(value!),
      (err: unknown) => w.reject(err),
    );
  const commit = async (group: Waiting[]): Promise<void> => {
    if (group.length === 1) return alone(group[0]!);
    let values: O[];
    try {
      values = await run(group.map((w) => w.item));
    } catch {
      await Promise.all(group.map(alone));
      return;
    }
    group.forEach((w, i) => w.resolve(values[i]!));
  };
  const pump = (): void => {
    if (scheduled || running >= opts.maxInFlight || waiting.length === 0) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      const group = waiting.splice(0, opts.maxItems);
      running++;
      void commit(group).finally(() => {
        running--;
        pump();
      });
      pump();
    });
  };
  return (item) =>
    new Promise<O>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      pump();
    });
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

/**
 * One value per client instance (each test's PrismaClient, each app's), made on first use: batch loaders and group
 * writers never mix databases.
 */
export function perClient<C extends object, T>(make: (client: C) => T): (client: C) => T {
  const made = new WeakMap<C, T>();
  return (client) => {
    let v = made.get(client);
    if (v === undefined) made.set(client, (v = make(client)));
    return v;
  };
}
