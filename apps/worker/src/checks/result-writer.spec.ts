import { describe, expect, it } from '@jest/globals';
import { GroupWriter, MAX_BATCH, type GroupStore } from './result-writer.js';

/** A store that records what it was asked to write, and commits when told to. */
function recordingStore(
  opts: { failGroups?: boolean; failInput?: number; order?: (a: number, b: number) => number } = {},
) {
  const calls: Array<{ kind: 'group' | 'one'; inputs: number[] }> = [];
  const pending: Array<() => void> = [];
  const wait = () => new Promise<void>((resolve) => pending.push(resolve));
  const store: GroupStore<number, string> = {
    async group(inputs) {
      calls.push({ kind: 'group', inputs });
      await wait();
      if (opts.failGroups) throw new Error('deadlock');
      return inputs.map((i) => `stored ${i}`);
    },
    async one(input) {
      calls.push({ kind: 'one', inputs: [input] });
      await wait();
      if (input === opts.failInput) throw new Error(`bad ${input}`);
      return `stored ${input}`;
    },
    order: opts.order,
  };
  const commitAll = () => pending.splice(0).forEach((resolve) => resolve());
  return { store, calls, commitAll };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('GroupWriter', () => {
  it('gathers the results that arrive within the linger into one group, and those arriving during its commit into the next', async () => {
    const { store, calls, commitAll } = recordingStore();
    const writer = new GroupWriter(store, 30);
    const first = [1, 2].map((i) => writer.write(i));
    await sleep(10);
    first.push(writer.write(3));
    expect(calls).toEqual([]);
    await sleep(40);
    expect(calls).toEqual([{ kind: 'group', inputs: [1, 2, 3] }]);
    // While the group commits: no timer, the next group forms and goes when the first is done.
    const second = [4, 5].map((i) => writer.write(i));
    await sleep(40);
    expect(calls).toHaveLength(1);
    commitAll();
    expect(await Promise.all(first)).toEqual(['stored 1', 'stored 2', 'stored 3']);
    await sleep(0);
    expect(calls[1]).toEqual({ kind: 'group', inputs: [4, 5] });
    commitAll();
    expect(await Promise.all(second)).toEqual(['stored 4', 'stored 5']);
  });

  it('a lone result goes alone after the linger; a full group goes at once', async () => {
    const { store, calls, commitAll } = recordingStore();
    const writer = new GroupWriter(store, 1000);
    const many = Array.from({ length: MAX_BATCH }, (_, i) => writer.write(i));
    await sleep(0);
    expect(calls).toEqual([{ kind: 'group', inputs: Array.from({ length: MAX_BATCH }, (_, i) => i) }]);
    commitAll();
    await Promise.all(many);

    const alone = recordingStore();
    const lone = new GroupWriter(alone.store, 5);
    const answer = lone.write(7);
    await sleep(20);
    expect(alone.calls).toEqual([{ kind: 'one', inputs: [7] }]);
    alone.commitAll();
    expect(await answer).toBe('stored 7');
  });

  it('when a group fails, stores each of its results alone: only the bad one fails', async () => {
    const { store, calls, commitAll } = recordingStore({ failGroups: true, failInput: 2 });
    const writer = new GroupWriter(store, 5);
    const answers = [1, 2, 3].map((i) => writer.write(i).catch((err: Error) => err.message));
    await sleep(20);
    for (let i = 0; i < 4; i++) {
      commitAll();
      await sleep(0);
    }
    expect(await Promise.all(answers)).toEqual(['stored 1', 'bad 2', 'stored 3']);
    expect(calls.map((c) => c.kind)).toEqual(['group', 'one', 'one', 'one']);
  });

  it("stores a failed group's results alone one after another, in the store's order", async () => {
    const { store, calls, commitAll } = recordingStore({ failGroups: true, order: (a, b) => a - b });
    const writer = new GroupWriter(store, 5);
    const answers = [3, 1, 2].map((i) => writer.write(i));
    await sleep(20);
    commitAll();
    // One at a time: the next starts only when the one before committed.
    for (const expected of [[1], [1, 2], [1, 2, 3]]) {
      await sleep(0);
      expect(calls.filter((c) => c.kind === 'one').map((c) => c.inputs[0])).toEqual(expected);
      commitAll();
    }
    expect(await Promise.all(answers)).toEqual(['stored 3', 'stored 1', 'stored 2']);
  });
});
