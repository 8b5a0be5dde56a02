// Integration suites need the environment `npm test` prepares (scripts/test.mjs). Fail with a clear message
// instead of a confusing connection error when Jest is run some other way.
export default async function globalSetup(): Promise<void> {
  if (process.env.NODE_ENV !== 'test' || !process.env.DATABASE_URL || !process.env.REDIS_URL) {
    throw new Error(
      'Run the integration tests with `npm test` (it starts PostgreSQL and Redis and migrates a test database).',
    );
  }
  // The console's assets, built fresh for every run (esbuild takes well under a second), so the pages under test
  // link the stylesheet and script of this checkout.
  // (Imported here, not at the top: Jest loads this file with require(), and the script is an ES module.)
  const { buildAssets } = await import('../../scripts/build-assets.mjs');
  await buildAssets();
}
