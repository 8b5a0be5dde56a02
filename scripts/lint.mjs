/**
 * `npm run lint`: Prettier, ESLint (type-aware, the slow one), knip and the SDK staleness check. ESLint runs beside
 * the other three, which run one after another: on 2 cores the whole takes about as long as ESLint alone. ESLint and
 * Prettier keep caches in .data/. Each lane's output is printed when it ends; the exit code is non-zero when any
 * check failed.
 */
import { spawn } from 'node:child_process';

const bin = (name) => `node_modules/.bin/${name}`;
/** Content-based caches in .data/: a fresh clone (CI) and an edited file are checked in full. */
const cache = (file) => ['--cache', '--cache-strategy', 'content', '--cache-location', `.data/${file}`];
const lanes = [
  [[bin('eslint'), ...cache('eslintcache'), '.']],
  [[bin('prettier'), '--check', ...cache('prettiercache'), '.'], [bin('knip')], ['npm', 'run', '-s', 'sdk:check']],
];

/** Runs one command, its output kept; resolves to its exit code and output. */
function run([cmd, ...args]) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', (err) => resolve({ code: 1, output: `${output}${cmd}: ${err.message}\n` }));
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

/** A lane stops at its first failing command, as `a && b` would. */
async function runLane(commands) {
  for (const command of commands) {
    const { code, output } = await run(command);
    process.stdout.write(output);
    if (code !== 0) {
      process.stderr.write(`lint: ${command.join(' ')} failed (exit ${code})\n`);
      return false;
    }
  }
  return true;
}

const results = await Promise.all(lanes.map(runLane));
process.exit(results.every(Boolean) ? 0 : 1);
