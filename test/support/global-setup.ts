// Integration suites need the environment `npm test` prepares (scripts/test.mjs). Fail with a clear message
// instead of a confusing connection error when Jest is run some other way.
export default function globalSetup(): void {
  if (process.env.NODE_ENV !== 'test' || !process.env.DATABASE_URL || !process.env.REDIS_URL) {
    throw new Error(
      'Run the integration tests with `npm test` (it starts PostgreSQL and Redis and migrates a test database).',
    );
  }
}
