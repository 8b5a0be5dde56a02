/**
 * Each Jest worker on a database of its own (scripts/test.mjs copies the migrated test database once per worker):
 * suites in different workers run at the same time, suites in one worker one after another, as before. Runs before
 * a suite's modules load, so every Prisma client, child process and scratch database of the suite sees it.
 */
const name = process.env.TEST_WORKER_DATABASE;
if (name && process.env.DATABASE_URL) {
  const url = new URL(process.env.DATABASE_URL);
  url.pathname = `/${name}_w${process.env.JEST_WORKER_ID ?? '1'}`;
  process.env.DATABASE_URL = url.toString();
}
export {};
