import { describe, expect, it } from '@jest/globals';
import { createBatchLoader, createGroupCommit } from './batch-loader.js';

describe('createBatchLoader', () => {
  it('sends the keys of one event-loop turn in one fetch, deduplicated, and answers each caller', async () => {
    const calls: string[][] = [];
    const loader = createBatchLoader<string, number>(async (keys) => {
      calls.push(keys);
      return new Map(keys.filter((k) => k !== 'missing').map((k) => [k, k.length]));
    });
    const answers = await Promise.all(['a', 'bb', 'a', 'missing', 'ccc'].map((k) => loader.load(k)));
    expect(answers).toEqual([1, 2, 1, undefined, 3]);
    expect(calls).toEqual([['a', 'bb', 'missing', 'ccc']]);
    await loader.load('dddd');
    expect(calls).toHaveLength(2);
  });

  it('shareInFlight: a call made while its key is in flight joins that fetch; later ones get a fetch of their own', async () => {
    const calls: string[][] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const loader = createBatchLoader<string, number>(
      async (keys) => {
        calls.push(keys);
        await gate;
        return new Map(keys.map((k) => [k, calls.length]));
      },
      { shareInFlight: true },
    );
    const first = loader.load('a');
    await new Promise((r) => setImmediate(r));
    expect(calls).toEqual([['a']]);
    // In flight: joins it, where a plain loader would send another fetch.
    const joined = loader.load('a');
    const other = loader.load('b');
    release();
    expect(await Promise.all([first, joined, other])).toEqual([1, 1, 2]);
    expect(calls).toEqual([['a'], ['b']]);
    expect(await loader.load('a')).toBe(3);
  });

  it('maxInFlight: a batch waits while that many fetches run, gathering the calls made meanwhile', async () => {
    const calls: string[][] = [];
    const gates: Array<() => void> = [];
    const loader = createBatchLoader<string, string>(
      async (keys) => {
        calls.push(keys);
        await new Promise<void>((r) => gates.push(r));
        return new Map(keys.map((k) => [k, k.toUpperCase()]));
      },
      { maxInFlight: 1 },
    );
    const first = loader.load('a');
    await new Promise((r) => setImmediate(r));
    const later = [loader.load('b')];
    await new Promise((r) => setImmediate(r));
    later.push(loader.load('c'), loader.load('d'));
    await new Promise((r) => setImmediate(r));
    expect(calls).toEqual([['a']]);
    gates.shift()!();
    expect(await first).toBe('A');
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    // b, c and d, asked in three turns while a ran, went as one batch (padded to a power of two).
    expect(calls).toEqual([['a'], ['b', 'c', 'd', 'd']]);
    gates.shift()!();
    expect(await Promise.all(later)).toEqual(['B', 'C', 'D']);
  });

  it('pad: false hands the fetch the distinct keys as they are, padded otherwise', async () => {
    const calls: string[][] = [];
    const fetch = async (keys: string[]) => {
      calls.push(keys);
      return new Map(keys.map((k) => [k, k]));
    };
    const plain = createBatchLoader<string, string>(fetch, { pad: false });
    const padded = createBatchLoader<string, string>(fetch);
    expect(await Promise.all(['a', 'b', 'c', 'a'].map((k) => plain.load(k)))).toEqual(['a', 'b', 'c', 'a']);
    expect(await Promise.all(['a', 'b', 'c'].map((k) => padded.load(k)))).toEqual(['a', 'b', 'c']);
    expect(calls).toEqual([
      ['a', 'b', 'c'],
      ['a', 'b', 'c', 'c'],
    ]);
  });

  it('splits at maxBatch and rejects every caller of a failed fetch', async () => {
    const sizes: number[] = [];
    const loader = createBatchLoader<number, number>(
      async (keys) => {
        sizes.push(keys.length);
        if (keys.includes(13)) throw new Error('boom');
        return new Map(keys.map((k) => [String(k), k * 2]));
      },
      { maxBatch: 4 },
    );
    const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => loader.load(i + 10)));
    expect(sizes).toEqual([4, 4, 2]);
    // The first fetch (10..13) failed: its four callers are rejected, the others answered.
    expect(results.map((r) => r.status)).toEqual([
      'rejected',
      'rejected',
      'rejected',
      'rejected',
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ]);
    expect((results[4] as PromiseFulfilledResult<number>).value).toBe(28);
  });
});

describe('padToPowerOfTwo', () => {
  it('repeats the last item up to the next power of two', async () => {
    const { padToPowerOfTwo } = await import('./batch-loader.js');
    expect(padToPowerOfTwo([])).toEqual([]);
    expect(padToPowerOfTwo(['a'])).toEqual(['a']);
    expect(padToPowerOfTwo(['a', 'b', 'c'])).toEqual(['a', 'b', 'c', 'c']);
    expect(padToPowerOfTwo([1, 2, 3, 4, 5])).toHaveLength(8);
  });
});

describe('createGroupCommit', () => {
  const turn = () => new Promise((r) => setImmediate(r));
  // A run that ends frees its slot once its promise settles; the next run starts the turn after.
  const settle = async () => {
    await turn();
    await turn();
  };

  it('runs at most maxInFlight groups at once; items asked meanwhile wait and go together, maxItems a run', async () => {
    const runs: string[][] = [];
    const gates: Array<() => void> = [];
    const commit = createGroupCommit(
      async (items: string[]) => {
        runs.push(items);
        await new Promise<void>((r) => gates.push(r));
        return items.map((i) => i.toUpperCase());
      },
      { maxItems: 3, maxInFlight: 2 },
    );
    const first = [commit('a'), commit('b')];
    await turn();
    const second = commit('c');
    await turn();
    // Both runs in flight: these five wait, and go in runs of at most three.
    const later = ['d', 'e', 'f', 'g', 'h'].map(commit);
    await turn();
    expect(runs).toEqual([['a', 'b'], ['c']]);
    gates.shift()!();
    expect(await Promise.all(first)).toEqual(['A', 'B']);
    await settle();
    expect(runs).toEqual([['a', 'b'], ['c'], ['d', 'e', 'f']]);
    gates.shift()!();
    expect(await second).toBe('C');
    await settle();
    expect(runs.slice(3)).toEqual([['g', 'h']]);
    gates.splice(0).forEach((open) => open());
    expect(await Promise.all(later)).toEqual(['D', 'E', 'F', 'G', 'H']);
  });

  it('when a run of several fails, runs each item alone: each resolves or rejects on its own', async () => {
    const runs: number[][] = [];
    const commit = createGroupCommit(
      async (items: number[]) => {
        runs.push(items);
        if (items.includes(2)) throw new Error(`failed with ${items.join(',')}`);
        return items.map((i) => i * 10);
      },
      { maxItems: 10, maxInFlight: 1 },
    );
    const outcomes = await Promise.allSettled([1, 2, 3].map(commit));
    expect(outcomes).toEqual([
      { status: 'fulfilled', value: 10 },
      { status: 'rejected', reason: new Error('failed with 2') },
      { status: 'fulfilled', value: 30 },
    ]);
    expect(runs).toEqual([[1, 2, 3], [1], [2], [3]]);
    // Alone, an item's failure is its own: no second run.
    await expect(commit(2)).rejects.toThrow('failed with 2');
    expect(runs).toHaveLength(5);
  });
});
