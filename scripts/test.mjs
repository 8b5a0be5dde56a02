// `npm test`: brings up what the suite needs (local PostgreSQL and Redis unless DATABASE_URL / REDIS_URL are
// given), creates a fresh test database, applies the migrations, generates the Prisma client if missing, and
// runs every Jest project. Extra arguments go to Jest: `npm test -- test/auth.test.ts`.
//
// Suites run in parallel, each Jest worker on a database of its own: the migrated test database is the template of
// `<test database>_w<n>` for n = 1..workers, and test/support/worker-database.ts points a worker at its copy
// (JEST_WORKER_ID). One worker per core (at least two: most suites wait on timers, queues and child processes rather
// than compute); more makes the CPU-heavy suites (builds, browsers, process spawns) slow enough to time out.
// `TEST_WORKERS=<n>` chooses the count; Jest's own -i / --runInBand / -w / --maxWorkers win.
import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { ensureServices } from './services.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const say = (msg) => process.stderr.write(`[test] ${msg}\n`);
const run = (cmd, args, env = process.env) => {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env });
  if (r.status !== 0) process.exit(r.status ?? 1);
};

/** A setup failure (services missing, database refused) is one readable message, not a stack trace. */
function fail(err) {
  for (const line of String(err instanceof Error ? err.message : err).split('\n')) say(line);
  process.exit(1);
}
process.on('uncaughtException', fail);
process.on('unhandledRejection', fail);

if (!existsSync(join(root, 'packages/shared/src/generated/prisma/client.ts'))) {
  run(process.execPath, ['scripts/prisma-generate.mjs']);
}

// Quiet: nothing about services that are already running; long steps (apt-get, initdb) still say what they do.
const { databaseUrl, redisUrl } = await ensureServices({ quiet: true });

/**
 * A separate database so tests never touch development data; recreated on each run. `TEST_DB_SUFFIX` gives
 * concurrent runs against one server (several checkouts, CI shards) a database each: `<db>_test_<suffix>`.
 */
function testDatabaseName(baseUrl) {
  const suffix = process.env.TEST_DB_SUFFIX ?? '';
  if (!/^[a-z0-9_]{0,20}$/.test(suffix)) throw new Error('TEST_DB_SUFFIX: up to 20 of a-z, 0-9 and _');
  return `${new URL(baseUrl).pathname.slice(1) || 'statusvane'}_test${suffix ? `_${suffix}` : ''}`;
}

/** Statements on the server's maintenance connection (the URL the services gave), one client for all of them. */
async function onServer(baseUrl, what, statements) {
  const admin = new pg.Client({ connectionString: baseUrl });
  try {
    await admin.connect();
    for (const sql of statements) await admin.query(sql);
  } catch (err) {
    throw new Error(`could not ${what} on ${new URL(baseUrl).host}: ${err.message}`, { cause: err });
  } finally {
    await admin.end().catch(() => undefined);
  }
}

const withName = (baseUrl, name) => {
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return url.toString();
};

/**
 * Tests lose nothing they need if the server crashes mid-run, so commits need not wait for the disk
 * (synchronous_commit off: no corruption risk, only the last moments' transactions).
 */
const fastCommits = (name) => `ALTER DATABASE "${name}" SET synchronous_commit = off`;

/** `-i`, `--runInBand`, `-w <n>` or `--maxWorkers`: the caller chose Jest's parallelism. */
const jestArgs = process.argv.slice(2);
const callerChoseWorkers = jestArgs.some((a) => /^(-i|--runInBand|-w|--maxWorkers)(=|$)/.test(a) || /^-w\d/.test(a));
const workers = (() => {
  if (process.env.TEST_DATABASE_URL || callerChoseWorkers) return 1;
  const asked = Number(process.env.TEST_WORKERS);
  if (process.env.TEST_WORKERS !== undefined) {
    if (!Number.isInteger(asked) || asked < 1 || asked > 16) throw new Error('TEST_WORKERS: a whole number, 1 to 16');
    return asked;
  }
  return Math.min(6, Math.max(2, availableParallelism()));
})();

let testDatabaseUrl;
let workerDatabases = null;
if (process.env.TEST_DATABASE_URL) {
  testDatabaseUrl = process.env.TEST_DATABASE_URL;
} else {
  const name = testDatabaseName(databaseUrl);
  // Copies of a previous run (perhaps with more workers) go first: a template cannot be dropped while copied.
  const stale = Array.from({ length: 16 }, (_, i) => `DROP DATABASE IF EXISTS "${name}_w${i + 1}" WITH (FORCE)`);
  await onServer(databaseUrl, `create the test database ${name}`, [
    ...stale,
    `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`,
    `CREATE DATABASE "${name}"`,
    fastCommits(name),
  ]);
  testDatabaseUrl = withName(databaseUrl, name);
  workerDatabases = { name, count: workers };
}
const testRedisUrl =
  process.env.TEST_REDIS_URL ??
  (() => {
    const u = new URL(redisUrl);
    u.pathname = '/1'; // a separate Redis database; suites also use their own key prefixes
    return u.toString();
  })();

/**
 * The API and the worker as one file each, for the suites that start them as processes (test/resilience): Node loads
 * a bundle in about a third of the CPU time tsx takes to compile the sources at every start (about 3 s against 8 s on
 * a busy two-core machine), and those suites start some thirty processes. Only our own code is bundled, exactly as tsx
 * would compile it (tsx is esbuild too); every package loads from node_modules as in production. One directory per run,
 * removed at its end, so that concurrent runs never load each other's build.
 */
const appBundleDir = join(root, '.data', 'test-bundle', String(process.pid));
const appBundle = import('esbuild').then(({ build }) =>
  build({
    absWorkingDir: root,
    entryPoints: { api: 'apps/api/src/main.ts', worker: 'apps/worker/src/main.ts' },
    outdir: appBundleDir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    alias: { '@statusvane/shared': './packages/shared/src/index.ts' },
    // The one module that finds files next to itself (apps/api/src/views/assets.ts) finds them where tsx would.
    define: { 'import.meta.dirname': JSON.stringify(join(root, 'apps/api/src/views')) },
    logLevel: 'warning',
  }),
);
process.on('exit', () => rmSync(appBundleDir, { recursive: true, force: true }));

const env = {
  ...process.env,
  NODE_ENV: 'test',
  DATABASE_URL: testDatabaseUrl,
  REDIS_URL: testRedisUrl,
  PRISMA_HIDE_UPDATE_MESSAGE: '1',
};
run(process.execPath, [join(root, 'node_modules/tsx/dist/cli.mjs'), 'scripts/migrate.ts', 'deploy'], env);
if (workerDatabases) {
  const { name, count } = workerDatabases;
  const copies = Array.from({ length: count }, (_, i) => `${name}_w${i + 1}`);
  await onServer(
    databaseUrl,
    `copy the test database ${name} for ${count} Jest worker(s)`,
    copies.flatMap((copy) => [`CREATE DATABASE "${copy}" TEMPLATE "${name}"`, fastCommits(copy)]),
  );
  env.TEST_WORKER_DATABASE = name;
}
await appBundle;
env.TEST_APP_BUNDLE_DIR = appBundleDir;
run(
  process.execPath,
  [
    '--experimental-vm-modules',
    '--no-warnings',
    join(root, 'node_modules/jest/bin/jest.js'),
    ...(callerChoseWorkers ? [] : [`--maxWorkers=${workers}`]),
    ...jestArgs,
  ],
  env,
);
