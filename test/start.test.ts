/**
 * `npm start` end to end, as the README tells a new user to run it: the script starts the API and a worker against
 * the given PostgreSQL and Redis, waits until the API is ready, and only then prints the demo token and a first
 * curl, which must work, and the console's first sign-in, which must sign in; Ctrl-C stops everything.
 *
 * The build is done here with `tsc -b --noCheck` (apps/*\/dist, which no other suite reads), and start.mjs runs with
 * --skip-build: its own build step also regenerates the Prisma client, which suites running at the same time load.
 * The emit is the build's; its type check is `npm run typecheck`'s (CI runs it before the tests), and here it
 * would cost a minute of CPU more while the other suites run beside this one.
 */
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { uniq } from './support/harness.js';
import {
  createScratchDatabase,
  deleteKeys,
  freePort,
  killAll,
  ROOT,
  spawnProcess,
  type ScratchDatabase,
} from './resilience/support/processes.js';

let db: ScratchDatabase;
let dataDir: string;
const prefix = `bull-start-${uniq('x').slice(2)}`;

beforeAll(async () => {
  const build = spawnSync(
    process.execPath,
    [join(ROOT, 'node_modules/typescript/bin/tsc'), '-b', 'apps/api', 'apps/worker', '--noCheck'],
    { cwd: ROOT, encoding: 'utf8' },
  );
  expect([build.status, build.stdout, build.stderr]).toEqual([0, '', '']);
  db = await createScratchDatabase('start');
  dataDir = mkdtempSync(join(tmpdir(), 'sv-start-'));
  // Three packages emitted: tens of seconds of CPU when the other suites run beside it (npm test runs suites in
  // parallel).
}, 240_000);

afterAll(async () => {
  await killAll();
  await deleteKeys(process.env.REDIS_URL!, [`${prefix}:*`]).catch(() => undefined);
  await db?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

/** `npm start --skip-build` against this suite's database and Redis, as a new user runs it, on `port`. */
function npmStart(label: string, port: number) {
  const {
    PUBLIC_BASE_URL: _drop,
    LOG_LEVEL: _level,
    ENCRYPTION_KEY: _key,
    ALLOWED_TARGET_CIDRS: _cidrs,
    ...inherited
  } = process.env;
  return spawnProcess(label, process.execPath, ['scripts/start.mjs', '--skip-build'], {
    ...inherited,
    NODE_ENV: 'development',
    DATABASE_URL: db.url,
    REDIS_URL: process.env.REDIS_URL!,
    PORT: String(port),
    METRICS_PORT: '0',
    QUEUE_PREFIX: prefix,
    DATA_DIR: dataDir,
  });
}

/** Waits for the script to exit, failing with its last output if it is still running after `ms`. */
async function exitWithin(start: ReturnType<typeof npmStart>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      start.exited,
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`npm start still running:\n${start.output().slice(-2000)}`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

describe('npm start', () => {
  it('prints the token and a first curl once the API is ready; the curl answers 200; Ctrl-C stops everything', async () => {
    const port = await freePort();
    const start = npmStart('npm start', port);
    const curlLine = /^ {2}curl -s -H "Authorization: Bearer (sv_[A-Za-z0-9_-]+)" (\S+)$/m;
    await start.waitForOutput(curlLine, 120_000);
    const out = start.output();
    const [, token, url] = curlLine.exec(out)!;
    expect(url).toBe(`http://localhost:${port}/api/v1/monitors`);
    expect(out).toContain(`owner token (shown once):\n\n  ${token}\n`);

    // The printed curl, as a user runs it right away.
    const res = await fetch(url!, { headers: { Authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ data: [], pagination: { page: 1, perPage: 25, total: 0, totalPages: 0 } });

    // The console's first sign-in, printed beside the token: the demo owner's email and a generated password that
    // signs in through the login form.
    const signIn = /^Sign in to the console: (\S+)\n {2}email {5}(\S+)\n {2}password {2}(\S+) {3}\(shown once;/m.exec(
      out,
    );
    expect(signIn).not.toBeNull();
    const [, loginUrl, email, password] = signIn!;
    expect([loginUrl, email]).toEqual([`http://localhost:${port}/app/login`, 'demo@statusvane.local']);
    expect(password!.length).toBeGreaterThanOrEqual(12);
    const form = await fetch(loginUrl!);
    const cookie = form.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!;
    const login = await fetch(loginUrl!, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        Cookie: cookie,
        Origin: `http://localhost:${port}`,
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ _csrf: csrf, email: email!, password: password! }).toString(),
    });
    expect([login.status, login.headers.get('location')]).toEqual([303, '/app']);
    const session = login.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const home = await fetch(`http://localhost:${port}/app`, { redirect: 'manual', headers: { Cookie: session } });
    expect([home.status, home.headers.get('location')]).toEqual([303, '/app/demo/monitors']);
    // A later seed (the next `npm start`) keeps the password and prints none.
    const again = spawnSync(process.execPath, [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), 'scripts/seed-demo.ts'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: db.url },
      encoding: 'utf8',
    });
    expect(again.status).toBe(0);
    expect(JSON.parse(again.stdout).signIn).toEqual({ email: 'demo@statusvane.local', password: null });

    // The local trial watches this machine and private networks, and says so; a deployment would refuse them.
    expect(out).toContain('Local trial: monitors may watch this machine and private networks');
    for (const target of [`http://127.0.0.1:${port}/readyz`, 'http://192.168.1.10/', 'http://[::1]:8080/']) {
      const created = await fetch(url!, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: 'Local', target }),
      });
      expect([target, created.status]).toEqual([target, 201]);
    }
    const outside = await fetch(url!, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Metadata', target: 'http://169.254.169.254/' }),
    });
    expect(outside.status).toBe(400);

    // Printed once the API answered start.mjs's /readyz poll with 200. The API logs that request when the answer has
    // left, so on a busy machine its log line can reach the shared output just after the banner: wait for it rather
    // than compare positions (without the poll there is no such line at all).
    await start.waitForOutput(/"route":"\/readyz","status":200/, 10_000);
    // The development key was created once, by start.mjs, before both processes read it.
    expect(readdirSync(dataDir)).toEqual(['encryption.key']);
    expect(readFileSync(join(dataDir, 'encryption.key'), 'utf8')).toMatch(/^[A-Za-z0-9+/]{43}=\n$/);
    expect(out).not.toMatch(/EEXIST|^\s+at .+:\d+:\d+\)?$/m);

    // Ctrl-C: the terminal signals the whole process group.
    start.kill('SIGINT');
    await exitWithin(start, 20_000);
    expect(start.exitCode()).toBe(0);
    expect(start.output()).toMatch(/closing the API/);
    expect(await fetch(url!).catch(() => 'refused')).toBe('refused');
  }, 180_000);

  it("stops before starting anything when another process holds the API's port, whose 200 on /readyz it ignores", async () => {
    const port = await freePort();
    // What used to be taken for the API: another server on the port, ready.
    const squatter = createServer((_req, res) => res.end('{"status":"ok"}'));
    await new Promise<void>((resolve) => squatter.listen(port, resolve));
    try {
      const start = npmStart('npm start (port taken)', port);
      await exitWithin(start, 120_000);
      expect(start.exitCode()).not.toBe(0);
      expect(start.output()).toContain(`port ${port} is in use by another process`);
      expect(start.output()).not.toMatch(/starting the API|Statusvane is running/);
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
  }, 150_000);
});
