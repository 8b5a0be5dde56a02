// `npm start`: the whole product on one machine. Starts PostgreSQL and Redis under .data/ unless DATABASE_URL /
// REDIS_URL are given, builds, applies migrations, creates the demo workspace and prints its token, then runs
// the API and one worker until Ctrl-C.
import { spawn, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureServices } from './services.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsx = join(root, 'node_modules/tsx/dist/cli.mjs');
const say = (msg) => process.stderr.write(`[start] ${msg}\n`);

function step(label, cmd, args, env, capture = false) {
  say(label);
  const r = spawnSync(cmd, args, { cwd: root, env, stdio: capture ? ['ignore', 'pipe', 'inherit'] : 'inherit', encoding: 'utf8' });
  if (r.status !== 0) {
    say(`failed: ${label}`);
    process.exit(r.status ?? 1);
  }
  return r.stdout;
}

const { databaseUrl, redisUrl } = await ensureServices();
const port = process.env.PORT ?? '3000';
const env = { ...process.env, DATABASE_URL: databaseUrl, REDIS_URL: redisUrl, PORT: port };

step('building (prisma client + tsc)', 'npm', ['run', '-s', 'build'], env);
step('applying migrations', process.execPath, [tsx, 'scripts/migrate.ts', 'deploy'], env);
const demo = JSON.parse(step('creating the demo workspace', process.execPath, [tsx, 'scripts/seed-demo.ts'], env, true));

const base = (process.env.PUBLIC_BASE_URL ?? `http://localhost:${port}`).replace(/\/+$/, '');
const children = [
  spawn(process.execPath, ['apps/api/dist/main.js'], { cwd: root, env, stdio: 'inherit' }),
  spawn(process.execPath, ['apps/worker/dist/main.js'], { cwd: root, env, stdio: 'inherit' }),
];

process.stdout.write(`
Statusvane is starting: API on ${base}/api/v1, one worker.
Demo workspace "${demo.workspace}", owner token (shown once):

  ${demo.token}

Send your first request:

  curl -s -H "Authorization: Bearer ${demo.token}" ${base}/api/v1/monitors

Press Ctrl-C to stop (PostgreSQL and Redis keep running: npm run services -- stop).
`);

let stopping = false;
function stop(signal) {
  if (stopping) return;
  stopping = true;
  for (const c of children) c.kill(signal);
}
process.on('SIGINT', () => stop('SIGTERM'));
process.on('SIGTERM', () => stop('SIGTERM'));
for (const c of children) {
  c.on('exit', (code) => {
    if (!stopping) {
      say(`a process exited (code ${code}); stopping the rest`);
      stop('SIGTERM');
      process.exitCode = code ?? 1;
    }
  });
}
