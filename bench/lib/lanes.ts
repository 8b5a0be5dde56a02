/**
 * Runs `one(i)` for i = 0 .. count - 1, `lanes` at a time: each lane starts the next run as its last one ends (a load
 * generator's fixed concurrency). Rejects with the first run that throws.
 */
export async function inLanes(count: number, lanes: number, one: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < count) await one(next++);
  };
  await Promise.all(Array.from({ length: lanes }, lane));
}
