/**
 * Group commit for check results: the results of concurrent checks are stored together, one transaction (one
 * multi-row INSERT, one flap read, one state update) for the group instead of one each. The store
 * (store-result.ts) says how a group and a single result are written; this module only decides which results go
 * together and when.
 *
 * A group starts with the first result that arrives while no transaction is running and is written LINGER_MS later,
 * or as soon as it has MAX_BATCH results, whichever comes first; results arriving while a group transaction runs
 * make up the next group. At 200 checks a second that is about 40 results a transaction instead of 2 or 3: the cost
 * of a transaction (round trips, Prisma's work per statement, PostgreSQL's per statement and per commit) is shared by
 * more results (docs/benchmarks.md, "Cost per check"). The price is the linger: a result is committed (and an
 * incident opened) up to LINGER_MS later; `checkedAt`, and so the lateness, is taken before. Each caller is answered
 * when its group committed. If a group fails, each of its results is stored alone, one after another in the store's
 * `order` (slot order: a later slot of a monitor never applies before an earlier one, and the fallback holds one
 * connection of the pool, not MAX_BATCH), so one bad result (or a deadlock) costs only itself a retry.
 */

/** Results per transaction at most. */
export const MAX_BATCH = 200;
/**
 * How long the first result of a group waits for others. Short next to a check's interval (10 s at least), to the
 * time a check takes and to the detection bound's 2 s of slack; long enough to gather a few dozen results at a few
 * hundred checks a second. Measured (bench --cost-only, 2,000 monitors every 10 s): 40 ms gave groups of about 9 and
 * 2.5 ms of CPU per check, 100 ms 2.1 ms, 250 ms 1.95 ms (PostgreSQL's share 0.55 -> 0.30 ms: its cost is mostly per
 * statement, planning included, not per row). At thousands of checks a second groups fill (MAX_BATCH) before it.
 */
export const LINGER_MS = 200;
/**
 * Group transactions in flight per writer: one, because results arriving while it commits make the next group
 * bigger, and a bigger group costs less per result.
 */
const MAX_IN_FLIGHT = 1;

export interface GroupStore<I, O> {
  /** Writes a group in one transaction; answers each input, in order. */
  group(inputs: I[]): Promise<O[]>;
  /** Writes one input in a transaction of its own. */
  one(input: I): Promise<O>;
  /** The order a failed group's inputs are written alone in (e.g. by slot); as they came when absent. */
  order?: (a: I, b: I) => number;
}

export class GroupWriter<I, O> {
  private queue: Array<{ input: I; resolve: (o: O) => void; reject: (e: unknown) => void }> = [];
  private inFlight = 0;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly store: GroupStore<I, O>,
    private readonly lingerMs = LINGER_MS,
  ) {}

  write(input: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.queue.push({ input, resolve, reject });
      if (this.queue.length >= MAX_BATCH) this.pump();
      // While a group transaction runs, its end pumps; otherwise this result starts a group and waits for company.
      else if (this.inFlight === 0 && this.timer === null) this.timer = setTimeout(() => this.pump(), this.lingerMs);
    });
  }

  private pump(): void {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    while (this.queue.length > 0 && this.inFlight < MAX_IN_FLIGHT) {
      const batch = this.queue.splice(0, MAX_BATCH);
      this.inFlight++;
      void this.flush(batch).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  private async flush(batch: GroupWriter<I, O>['queue']): Promise<void> {
    let out: O[];
    try {
      out =
        batch.length === 1
          ? [await this.store.one(batch[0]!.input)]
          : await this.store.group(batch.map((b) => b.input));
    } catch (err) {
      if (batch.length === 1) return batch[0]!.reject(err);
      const order = this.store.order;
      const alone = order ? [...batch].sort((a, b) => order(a.input, b.input)) : batch;
      for (const b of alone) await this.store.one(b.input).then(b.resolve, b.reject);
      return;
    }
    batch.forEach((b, i) => b.resolve(out[i]!));
  }
}

/** A GroupStore order: by slot. */
export const bySlot = (a: { slot: Date }, b: { slot: Date }): number => a.slot.getTime() - b.slot.getTime();
