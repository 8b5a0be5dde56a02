// `npm test`: brings up what the suite needs (local PostgreSQL and Redis unless DATABASE_URL / REDIS_URL are
// given), creates a fresh test database, applies the migrations, generates the Prisma client if missing, and
// runs every Jest project. Extra arguments go to Jest: `npm test -- test/auth.test.ts`.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
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
async function freshTestDatabase(baseUrl) {
  if (process.env.TEST_DATABASE_URL) return process.env.TEST_DATABASE_URL;
  const suffix = process.env.TEST_DB_SUFFIX ?? '';
  if (!/^[a-z0-9_]{0,20}$/.test(suffix)) throw new Error('TEST_DB_SUFFIX: up to 20 of a-z, 0-9 and _');
  const url = new URL(baseUrl);
  const name = `${url.pathname.slice(1) || 'statusvane'}_test${suffix ? `_${suffix}` : ''}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  try {
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.query(`CREATE DATABASE "${name}"`);
  } catch (err) {
    throw new Error(`could not create the test database ${name} on ${url.host}: ${err.message}`, { cause: err });
  } finally {
    await admin.end().catch(() => undefined);
  }
  url.pathname = `/${name}`;
  return url.toString();
}

const testDatabaseUrl = await freshTestDatabase(databaseUrl);
const testRedisUrl =
  process.env.TEST_REDIS_URL ??
  (() => {
    const u = new URL(redisUrl);
    u.pathname = '/1'; // a separate Redis database; suites also use their own key prefixes
    return u.toString();
  })();

const env = {
  ...process.env,
  NODE_ENV: 'test',
  DATABASE_URL: testDatabaseUrl,
  REDIS_URL: testRedisUrl,
  PRISMA_HIDE_UPDATE_MESSAGE: '1',
};
run(process.execPath, [join(root, 'node_modules/tsx/dist/cli.mjs'), 'scripts/migrate.ts', 'deploy'], env);
run(
  process.execPath,
  ['--experimental-vm-modules', '--no-warnings', join(root, 'node_modules/jest/bin/jest.js'), ...process.argv.slice(2)],
  env,
);
