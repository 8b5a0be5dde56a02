// `npm start`: the whole product on one machine. Starts PostgreSQL and Redis under .data/ unless DATABASE_URL /
// REDIS_URL are given, builds, applies migrations, checks the configuration (creating the development encryption
// key once, before the API and the worker both look for it), creates the demo workspace, starts the API and one
// worker, waits until the API is ready, then prints the demo token, a first curl and the console's first sign-in (the
// demo owner's email and, the first time, a generated password). Runs until Ctrl-C. Unless
// ALLOWED_TARGET_CIDRS is given (or NODE_ENV is production), the API and worker it starts may watch loopback and
// private addresses: a trial on one's own machine and network (LOCAL_TRIAL_CIDRS).
//
//   npm start                  everything above
//   npm start -- --skip-build  use the existing build (apps/*/dist) as it is, e.g. right after `npm run build`
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ensureServices } from './services.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsx = join(root, 'node_modules/tsx/dist/cli.mjs');
const say = (msg) => process.stderr.write(`[start] ${msg}\n`);
/** How long the API may take from spawn to a 200 on /readyz. */
const READY_TIMEOUT_MS = 60_000;
/**
 * What the local trial may watch besides the internet: this machine and the private networks around it. The SSRF guard
 * refuses them by default (decisions: a hosted service must not be turned on its own network); a newcomer trying
 * Statusvane on a laptop wants exactly those. Only for the API and worker this script starts, only when
 * ALLOWED_TARGET_CIDRS is not given and NODE_ENV is not production: a deployment configures its own.
 */
const LOCAL_TRIAL_CIDRS = '127.0.0.0/8,::1/128,10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,fc00::/7';

const args = process.argv.slice(2);
const unknown = args.filter((a) => a !== '--skip-build');
if (unknown.length > 0) {
  say(`unknown argument ${unknown.join(' ')} (usage: npm start [-- --skip-build])`);
  process.exit(2);
}
const skipBuild = args.includes('--skip-build');

/** Every failure ends here: one readable line (or the lines of a ConfigError), no stack trace, exit 1. */
function fail(err) {
  const message = err instanceof Error ? err.message : String(err);
  for (const line of message.split('\n')) say(line);
  stopChildren();
  process.exitCode = 1;
  setTimeout(() => process.exit(1), 10_000).unref();
}

function step(label, cmd, argv, env, capture = false) {
  say(label);
  const r = spawnSync(cmd, argv, {
    cwd: root,
    env,
    stdio: capture ? ['ignore', 'pipe', 'inherit'] : 'inherit',
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`failed: ${label}${r.error ? ` (${r.error.message})` : ''}`);
  return r.stdout;
}

const children = [];
let stopping = false;
function stopChildren(signal = 'SIGTERM') {
  if (stopping) return;
  stopping = true;
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill(signal);
}
process.on('SIGINT', () => {
  stopChildren();
  if (children.length === 0) process.exit(130);
});
process.on('SIGTERM', () => {
  stopChildren();
  if (children.length === 0) process.exit(143);
});

/**
 * Fails when another process holds the API's port, just before the API is started: a server already there would answer
 * /readyz in the API's place (and its 200 be taken for the API's), while the API itself exits on EADDRINUSE.
 */
function ensurePortFree(port) {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (err) =>
      reject(
        err.code === 'EADDRINUSE'
          ? new Error(`port ${port} is in use by another process: stop it, or give the API another one with PORT`)
          : err,
      ),
    );
    // As the API listens: every address, the port alone.
    probe.listen(port, () => probe.close(() => resolve()));
  });
}

/** Polls GET /readyz until 200; fails when a process exits or the time is up. */
async function waitUntilReady(url) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let last = 'no answer';
  while (Date.now() < deadline) {
    const gone = children.find((c) => c.exitCode !== null || c.signalCode !== null);
    if (gone)
      throw new Error(
        `the ${gone.label} exited (code ${gone.exitCode ?? gone.signalCode}) before the API was ready; its messages are above`,
      );
    if (stopping) throw new Error('stopped before the API was ready');
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(3000) });
      if (res.status === 200) return;
      last = `${res.status} ${await res.text()}`;
    } catch (err) {
      last = err?.cause?.code ?? err?.message ?? String(err);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the API did not become ready within ${READY_TIMEOUT_MS / 1000} s (GET ${url}: ${last})`);
}

async function main() {
  const { databaseUrl, redisUrl } = await ensureServices();
  // An empty variable counts as unset, as everywhere in the configuration.
  const localTargets = !process.env.ALLOWED_TARGET_CIDRS && process.env.NODE_ENV !== 'production';
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    ...(localTargets ? { ALLOWED_TARGET_CIDRS: LOCAL_TRIAL_CIDRS } : {}),
  };

  if (skipBuild) say('using the existing build (--skip-build)');
  else step('building (prisma client + tsc)', 'npm', ['run', '-s', 'build'], env);

  // The configuration the API and the worker are about to parse, checked once here: a problem is reported before
  // anything starts, and the development encryption key is created now rather than by both processes at once.
  say('checking the configuration');
  const { parseConfig } = await import(pathToFileURL(join(root, 'packages/shared/dist/config/index.js')).href);
  const config = parseConfig(env);

  step('applying migrations', process.execPath, [tsx, 'scripts/migrate.ts', 'deploy'], env);
  const demo = JSON.parse(
    step('creating the demo workspace', process.execPath, [tsx, 'scripts/seed-demo.ts'], env, true),
  );

  await ensurePortFree(config.port);
  say('starting the API and one worker');
  // The worker with its young generation as deployed (docs/decisions.md, "The worker's heap").
  for (const [label, args] of [
    ['API', ['apps/api/dist/main.js']],
    ['worker', ['--max-semi-space-size=64', 'apps/worker/dist/main.js']],
  ]) {
    const child = spawn(process.execPath, args, { cwd: root, env, stdio: 'inherit' });
    child.label = label;
    children.push(child);
    child.on('exit', (code, signal) => {
      if (!stopping) {
        say(`the ${label} exited (${signal ?? `code ${code}`}); stopping the rest`);
        stopChildren();
        process.exitCode = code || 1;
      }
    });
  }
  await waitUntilReady(`http://127.0.0.1:${config.port}/readyz`);

  const base = config.publicBaseUrl;
  const targets = localTargets
    ? `Local trial: monitors may watch this machine and private networks (ALLOWED_TARGET_CIDRS=${LOCAL_TRIAL_CIDRS}).
A deployment refuses those targets unless its own ALLOWED_TARGET_CIDRS lets them through.`
    : `Targets: the internet${config.allowedTargetCidrs ? ` and ALLOWED_TARGET_CIDRS=${config.allowedTargetCidrs}` : ''} (loopback and private addresses refused otherwise).`;
  process.stdout.write(`
Statusvane is running: API on ${base}/api/v1, one worker.
${targets}
Demo workspace "${demo.workspace}", owner token (shown once):

  ${demo.token}

Sign in to the console: ${base}/app/login
${
  demo.signIn.password
    ? `  email     ${demo.signIn.email}
  password  ${demo.signIn.password}   (shown once; change it on ${base}/app/account)`
    : `  email     ${demo.signIn.email}   (password chosen earlier; lost it? npm run -s admin -- user reset-link --email ${demo.signIn.email})`
}

Send your first request:

  curl -s -H "Authorization: Bearer ${demo.token}" ${base}/api/v1/monitors
${
  localTargets
    ? `
Watch something on this machine (a service on port 8080, say):

  curl -s -X POST -H "Authorization: Bearer ${demo.token}" -H 'Content-Type: application/json' \\
    -d '{"name":"My app","target":"http://127.0.0.1:8080/"}' ${base}/api/v1/monitors
`
    : ''
}
Press Ctrl-C to stop (PostgreSQL and Redis keep running: npm run services -- stop).
`);
}

main().catch(fail);
