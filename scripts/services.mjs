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
// If DATABASE_URL (or REDIS_URL) is set in the environment, that service is not
// managed and the URL is used as is. Otherwise the service runs under <repo>/.data/
// on 127.0.0.1 only: PostgreSQL on SV_PG_PORT (default 54329), Redis on
// SV_REDIS_PORT (default 63799). Messages go to stderr, prefixed with [services].
//
// Only Node built-ins are used.

import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SCRIPT_PATH = fileURLToPath(import.meta.url);
const REPO_ROOT = path.resolve(path.dirname(SCRIPT_PATH), '..');
const DATA_DIR = path.join(REPO_ROOT, '.data');
const LOCK_DIR = path.join(DATA_DIR, '.services.lock');
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

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function makeLogger(quiet) {
  return {
    info: (msg) => {
      if (!quiet) process.stderr.write(`[services] ${msg}\n`);
    },
    warn: (msg) => {
      if (!quiet) process.stderr.write(`[services] warning: ${msg}\n`);
    },
    /** Steps that take a while (installing packages, creating or starting a server): said even when quiet. */
    progress: (msg) => process.stderr.write(`[services] ${msg}\n`),
  };
}

function parsePort(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 65535) {
    throw new Error(`${name}=${JSON.stringify(raw)} is not a valid TCP port`);
  }
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
  // Written whole under a temporary name, then renamed: a concurrent reader sees no file or the whole password.
  const tmp = `${DB_PASSWORD_FILE}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${crypto.randomBytes(24).toString('hex')}\n`, { mode: 0o600 });
  try {
    fs.linkSync(tmp, DB_PASSWORD_FILE); // fails if another process won the race: use theirs
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

function exists(p) {
  try {
    fs.accessSync(p);
    return true;
  } catch {
    return false;
  }
}

function isExecutableFile(p) {
  try {
    if (!fs.statSync(p).isFile()) return false;
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

const EXTRA_BIN_DIRS = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin'];

/** Absolute path of an executable on PATH (plus the usual system dirs), or null. */
function which(name) {
  const dirs = [...(process.env.PATH || '').split(path.delimiter).filter(Boolean), ...EXTRA_BIN_DIRS];
  for (const dir of dirs) {
    const p = path.join(dir, name);
    if (isExecutableFile(p)) return p;
  }
  return null;
}

function tailFile(file, lines = 30) {
  try {
    const text = fs.readFileSync(file, 'utf8');
    const all = text.trimEnd().split('\n');
    return all.slice(-lines).join('\n');
  } catch (e) {
    return `(could not read ${file}: ${e.code || e.message})`;
  }
}

function withLogTail(message, file) {
  return `${message}\n--- last lines of ${file} ---\n${tailFile(file)}\n--- end of ${file} ---`;
}

function lastChars(s, n = 4000) {
  return s.length > n ? `...${s.slice(-n)}` : s;
}

/** Does any process (even a zombie) have this pid? */
function pidExists(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

/** Is pid alive and (where /proc exists) a process whose name contains `nameHint`? */
function pidAlive(pid, nameHint) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (e) {
    if (e.code !== 'EPERM') return false;
  }
  if (exists('/proc/self')) {
    try {
      // A killed daemon whose parent doesn't reap it lingers as a zombie: treat it as dead.
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (state === 'Z' || state === 'X') return false;
    } catch {
      return false;
    }
  }
  if (nameHint && exists('/proc/self')) {
    try {
      const comm = fs.readFileSync(`/proc/${pid}/comm`, 'utf8');
      const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      return comm.includes(nameHint) || cmdline.includes(nameHint);
    } catch {
      return false;
    }
  }
  return true;
}

function readPidFile(file) {
  try {
    const first = fs.readFileSync(file, 'utf8').split('\n')[0].trim();
    const pid = Number(first);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

async function waitForPidExit(pid, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!pidAlive(pid)) return true;
    await sleep(100);
  }
  return !pidAlive(pid);
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
  if (/^[A-Za-z0-9@%+=:,./_-]*$/.test(value) && value !== '') return value;
  return `'${String(value).replace(/'/g, `'\\''`)}'`;
}

// ---------------------------------------------------------------------------
// running commands

let runuserPath;
function wrapAsUser(user, cmd, args) {
  if (runuserPath === undefined) runuserPath = which('runuser');
  if (runuserPath) return [runuserPath, ['-u', user, '--', cmd, ...args]];
  const su = which('su');
  if (!su) throw new Error(`running as root but neither runuser nor su is available to switch to the ${user} user`);
  return [su, ['-s', '/bin/sh', '-c', 'exec "$0" "$@"', user, '--', cmd, ...args]];
}

/**
 * Run a command; resolves with { code, stdout, stderr } (never rejects).
 * asPg: when root, run it as the postgres OS user. stream: copy output to stderr.
 */
function run(cmd, args, { asPg = false, stream = false, env, cwd, timeoutMs = 0 } = {}) {
  let file = cmd;
  let argv = args;
  let dir = cwd ?? REPO_ROOT;
  if (asPg && isRoot()) {
    [file, argv] = wrapAsUser(PG_OS_USER, cmd, args);
    dir = cwd ?? '/';
  }
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let done = false;
    const finish = (result) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({ stdout: lastChars(stdout, 65536), stderr: lastChars(stderr, 65536), ...result });
    };
    let child;
    try {
      child = spawn(file, argv, { cwd: dir, env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      finish({ code: -1, stderr: String(e.message) });
      return;
    }
    const timer = timeoutMs
      ? setTimeout(() => {
          stderr += `\n(timed out after ${timeoutMs} ms)`;
          child.kill('SIGKILL');
        }, timeoutMs)
      : null;
    child.stdout.on('data', (d) => {
      stdout += d;
      if (stream) process.stderr.write(d);
    });
    child.stderr.on('data', (d) => {
      stderr += d;
      if (stream) process.stderr.write(d);
    });
    child.on('error', (e) => finish({ code: -1, stderr: `${stderr}${e.message}` }));
    child.on('close', (code, signal) => finish({ code: code ?? -1, signal }));
    // A daemon that inherited our pipes would keep 'close' from firing: don't wait for it forever.
    child.on('exit', (code, signal) => {
      setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish({ code: code ?? -1, signal });
      }, 2000).unref();
    });
  });
}

function describeFailure(what, res) {
  const out = `${res.stdout || ''}${res.stderr || ''}`.trim();
  return `${what} failed (exit ${res.code}${res.signal ? `, signal ${res.signal}` : ''})${out ? `:\n${lastChars(out)}` : ''}`;
}

// ---------------------------------------------------------------------------
// TCP probes

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

/**
 * Send a RESP command (array of strings) and return the first reply line, '' if the port
 * is open but nothing sensible came back, or null if nothing listens there.
 */
function redisCommand(port, parts, host = HOST, timeoutMs = 1500) {
  return new Promise((resolve) => {
    const sock = net.connect({ port, host });
    let buf = '';
    let connected = false;
    const done = (v) => {
      sock.destroy();
      resolve(v);
    };
    sock.setTimeout(timeoutMs, () => done(connected ? buf.split('\r\n')[0] : null));
    sock.once('connect', () => {
      connected = true;
      sock.write(`*${parts.length}\r\n${parts.map((p) => `$${Buffer.byteLength(p)}\r\n${p}\r\n`).join('')}`);
    });
    sock.on('data', (d) => {
      buf += d.toString('utf8');
      if (buf.includes('\r\n')) done(buf.split('\r\n')[0]);
    });
    sock.once('error', () => done(connected ? buf.split('\r\n')[0] : null));
    sock.once('end', () => done(buf.split('\r\n')[0]));
  });
}

const redisPing = (port, host = HOST) => redisCommand(port, ['PING'], host);

// ---------------------------------------------------------------------------
// locking (several processes may call ensureServices at once, e.g. parallel test runners)

let lockChain = Promise.resolve();
let lockHeld = false;

function releaseLockSync() {
  if (!lockHeld) return;
  lockHeld = false;
  try {
    fs.rmSync(LOCK_DIR, { recursive: true, force: true });
  } catch {
    /* ignore */
  }
}
process.on('exit', releaseLockSync);

async function acquireLock(log) {
  fs.mkdirSync(DATA_DIR, { recursive: true });
  const deadline = Date.now() + 5 * 60_000;
  let announced = false;
  for (;;) {
    try {
      fs.mkdirSync(LOCK_DIR);
      fs.writeFileSync(path.join(LOCK_DIR, 'pid'), `${process.pid}\n`);
      lockHeld = true;
      return;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
    }
    const holder = readPidFile(path.join(LOCK_DIR, 'pid'));
    let stale;
    if (holder !== null) {
      stale = !pidAlive(holder);
    } else {
      try {
        stale = Date.now() - fs.statSync(LOCK_DIR).mtimeMs > 10_000;
      } catch {
        stale = false; // vanished meanwhile; retry
      }
    }
    if (stale) {
      fs.rmSync(LOCK_DIR, { recursive: true, force: true });
      continue;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `timed out waiting for ${LOCK_DIR} (held by pid ${holder ?? '?'}); remove it if no other services.mjs is running`,
      );
    }
    if (!announced) {
      log.info(`waiting for another services.mjs (pid ${holder ?? '?'}) to finish`);
      announced = true;
    }
    await sleep(250);
  }
}

function withLock(log, fn) {
  const next = lockChain.then(async () => {
    await acquireLock(log);
    try {
      return await fn();
    } finally {
      releaseLockSync();
    }
  });
  lockChain = next.catch(() => {});
  return next;
}

// ---------------------------------------------------------------------------
// binaries and packages

function pgMajorOf(pgCtl) {
  return run(pgCtl, ['--version']).then((res) => {
    const m = /\(PostgreSQL\)\s+(\d+)/.exec(res.stdout) || /(\d+)(?:\.\d+)?/.exec(res.stdout);
    return m ? Number(m[1]) : null;
  });
}

/**
 * Find PostgreSQL server binaries: the highest /usr/lib/postgresql/<ver>/bin, or initdb/pg_ctl
 * on PATH. With wantMajor, only that major version is accepted (an existing data dir needs it).
 * Returns { major, binDir, initdb, pgCtl, psql, pgIsready } or { missing: true, found }.
 */
async function findPg(wantMajor = null) {
  const candidates = [];
  const root = '/usr/lib/postgresql';
  try {
    for (const ver of fs.readdirSync(root)) {
      const major = Number.parseInt(ver, 10);
      const binDir = path.join(root, ver, 'bin');
      if (
        Number.isInteger(major) &&
        isExecutableFile(path.join(binDir, 'pg_ctl')) &&
        isExecutableFile(path.join(binDir, 'initdb')) &&
        isExecutableFile(path.join(binDir, 'postgres'))
      ) {
        candidates.push({ major, binDir });
      }
    }
  } catch {
    /* not a Debian-style layout */
  }
  const onPath = which('pg_ctl');
  if (onPath && which('initdb')) {
    const binDir = path.dirname(fs.realpathSync(onPath));
    if (!candidates.some((c) => c.binDir === binDir)) {
      const major = await pgMajorOf(onPath);
      if (major) {
        candidates.push({
          major,
          binDir,
          pgCtl: onPath,
          initdb: isExecutableFile(path.join(binDir, 'initdb')) ? path.join(binDir, 'initdb') : which('initdb'),
        });
      }
    }
  }
  candidates.sort((a, b) => b.major - a.major);
  const pick = wantMajor
    ? candidates.find((c) => c.major === wantMajor)
    : candidates.find((c) => c.major >= PG_MIN_MAJOR);
  if (!pick) return { missing: true, found: candidates.map((c) => `${c.major} (${c.binDir})`) };
  const inBin = (name) => {
    const p = path.join(pick.binDir, name);
    return isExecutableFile(p) ? p : which(name);
  };
  return {
    major: pick.major,
    binDir: pick.binDir,
    pgCtl: pick.pgCtl || path.join(pick.binDir, 'pg_ctl'),
    initdb: pick.initdb || path.join(pick.binDir, 'initdb'),
    psql: inBin('psql'),
    pgIsready: inBin('pg_isready'),
  };
}

const findRedis = () => which('redis-server');

let aptUpdated = false;
const canAutoInstall = () => isRoot() && exists('/etc/debian_version') && which('apt-get') !== null;

async function aptInstall(log, quiet, pkgs) {
  const apt = which('apt-get');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const stream = !quiet;
  const started = Date.now();
  if (!aptUpdated) {
    log.progress(
      `${pkgs.join(' and ')} not installed: running apt-get update, then apt-get install (can take a few minutes)`,
    );
    const res = await run(apt, ['-o', 'DPkg::Lock::Timeout=120', 'update'], { env, stream });
    if (res.code !== 0) throw new Error(describeFailure('apt-get update', res));
    aptUpdated = true;
  }
  log.progress(`installing ${pkgs.join(' ')} with apt-get`);
  const res = await run(
    apt,
    [
      '-o',
      'DPkg::Lock::Timeout=120',
      '-o',
      'Dpkg::Options::=--force-confdef',
      '-o',
      'Dpkg::Options::=--force-confold',
      'install',
      '-y',
      ...pkgs,
    ],
    { env, stream },
  );
  if (res.code !== 0) throw new Error(describeFailure(`apt-get install -y ${pkgs.join(' ')}`, res));
  log.progress(`installed ${pkgs.join(' ')} in ${Math.round((Date.now() - started) / 1000)} s`);
}

/** Make sure the binaries we need exist, installing them on Debian as root. */
async function ensureBinaries(log, quiet, { needPg, needRedis, wantPgMajor }) {
  let pg = needPg ? await findPg() : null;
  let redis = needRedis ? findRedis() : null;
  const missing = [];
  if (needPg && pg.missing) missing.push('postgresql');
  if (needRedis && !redis) missing.push('redis-server');
  if (missing.length > 0) {
    if (canAutoInstall()) {
      await aptInstall(log, quiet, missing);
      if (needPg) pg = await findPg();
      if (needRedis) redis = findRedis();
    }
    const still = [];
    const what = [];
    const vars = [];
    if (needPg && pg.missing) {
      still.push('postgresql');
      what.push(`PostgreSQL ${PG_MIN_MAJOR}+${pg.found.length ? ` (found only ${pg.found.join(', ')})` : ''}`);
      vars.push('DATABASE_URL');
    }
    if (needRedis && !redis) {
      still.push('redis-server');
      what.push('redis-server');
      vars.push('REDIS_URL');
    }
    if (still.length > 0) {
      throw new Error(
        `${what.join(' and ')} ${still.length > 1 ? 'are' : 'is'} missing: run \`sudo apt-get install -y ${still.join(' ')}\`` +
          ` (or the equivalent for your OS, e.g. \`brew install postgresql@16 redis\`) or set ${vars.join(' and ')}`,
      );
    }
  }
  if (needPg && wantPgMajor && pg.major !== wantPgMajor) {
    const exact = await findPg(wantPgMajor);
    if (exact.missing) {
      throw new Error(
        `the existing PostgreSQL data dir was created by PostgreSQL ${wantPgMajor}, but only ${pg.major} is installed: ` +
          `install postgresql-${wantPgMajor}, or delete the dev data dir (see \`node scripts/services.mjs status\`) to re-create it`,
      );
    }
    pg = exact;
  }
  if (needPg && !pg.psql) {
    throw new Error('psql is missing: run `sudo apt-get install -y postgresql-client` or set DATABASE_URL');
  }
  return { pg, redis };
}

// ---------------------------------------------------------------------------
// PostgreSQL

function pgLayouts() {
  return {
    primary: { dataDir: path.join(DATA_DIR, 'pg'), logFile: path.join(DATA_DIR, 'pg.log'), fallback: false },
    fallback: {
      dataDir: path.join(FALLBACK_BASE, 'pg'),
      logFile: path.join(FALLBACK_BASE, 'pg.log'),
      fallback: true,
    },
  };
}

/** The layout whose data dir is already initialised (primary wins), or null. */
function existingPgLayout() {
  const { primary, fallback } = pgLayouts();
  if (exists(path.join(primary.dataDir, 'PG_VERSION'))) return primary;
  if (exists(path.join(fallback.dataDir, 'PG_VERSION'))) return fallback;
  return null;
}

function dataDirMajor(dataDir) {
  try {
    return Number.parseInt(fs.readFileSync(path.join(dataDir, 'PG_VERSION'), 'utf8').trim(), 10) || null;
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
  let uid = await idOf('-u', PG_OS_USER);
  if (uid === null) {
    log.info(`creating system user ${PG_OS_USER}`);
    const useradd = which('useradd');
    if (!useradd) throw new Error(`the ${PG_OS_USER} system user is missing and useradd is not available`);
    const groupExists = (await run('getent', ['group', PG_OS_USER])).code === 0;
    const args = ['--system', '--no-create-home', ...(groupExists ? ['-g', PG_OS_USER] : []), PG_OS_USER];
    const res = await run(useradd, args);
    if (res.code !== 0) throw new Error(describeFailure(`useradd ${args.join(' ')}`, res));
    uid = await idOf('-u', PG_OS_USER);
  }
  const gid = await idOf('-g', PG_OS_USER);
  if (uid === null || gid === null) throw new Error(`could not resolve uid/gid of the ${PG_OS_USER} user`);
  return { uid, gid };
}

/** Create a dir we own (not following a pre-planted symlink in /tmp). */
function ensureOwnDir(dir, mode) {
  fs.mkdirSync(dir, { recursive: true, mode });
  const st = fs.lstatSync(dir);
  const me = typeof process.getuid === 'function' ? process.getuid() : st.uid;
  if (!st.isDirectory() || st.uid !== me) {
    throw new Error(`${dir} exists but is not a directory owned by uid ${me}; remove it`);
  }
}

/**
 * Pick and prepare the layout for a new or existing cluster. As root the cluster runs as the
 * postgres user, which must be able to traverse the path to .data; if it can't (restrictive
 * permissions on an ancestor dir we don't own), we use /tmp/statusvane-<hash>/ instead of
 * silently loosening permissions.
 */
async function preparePgLayout(log) {
  const { primary, fallback } = pgLayouts();
  const existing = existingPgLayout();
  if (!isRoot()) {
    const layout = existing || primary;
    fs.mkdirSync(layout.dataDir, { recursive: true, mode: 0o700 });
    return layout;
  }
  const { uid, gid } = await ensurePgOsUser(log);
  const canTraverse = async (dir) => (await run('test', ['-x', dir], { asPg: true })).code === 0;

  let layout = existing;
  if (!layout) {
    if (!exists(DATA_DIR)) {
      fs.mkdirSync(DATA_DIR, { recursive: true });
      fs.chmodSync(DATA_DIR, 0o755);
    }
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
    ensureOwnDir(FALLBACK_BASE, 0o755);
    fs.chmodSync(FALLBACK_BASE, 0o755);
  }
  fs.mkdirSync(layout.dataDir, { recursive: true, mode: 0o700 });
  const st = fs.statSync(layout.dataDir);
  if (st.uid !== uid) {
    if (exists(path.join(layout.dataDir, 'PG_VERSION'))) {
      log.info(`fixing ownership of ${layout.dataDir} (chown -R ${PG_OS_USER})`);
      const res = await run('chown', ['-R', `${uid}:${gid}`, layout.dataDir]);
      if (res.code !== 0) throw new Error(describeFailure(`chown -R ${layout.dataDir}`, res));
    } else {
      fs.chownSync(layout.dataDir, uid, gid);
    }
  }
  fs.chmodSync(layout.dataDir, 0o700);
  if (!exists(layout.logFile)) fs.writeFileSync(layout.logFile, '');
  fs.chownSync(layout.logFile, uid, gid);
  return layout;
}

/** Write the per-start settings file (port, listen address, socket dir) into the data dir. */
async function writePgSettings(layout, port) {
  const socketName = `.s.PGSQL.${port}`;
  const socketDir = path.join(layout.dataDir, socketName).length < 100 ? layout.dataDir : '/tmp';
  const q = (s) => `'${String(s).replace(/'/g, "''")}'`;
  const settings = [
    '# Written by scripts/services.mjs on every start; edit that script, not this file.',
    `listen_addresses = ${q(HOST)}`,
    `port = ${port}`,
    `unix_socket_directories = ${q(socketDir)}`,
    'max_connections = 200',
    '',
  ].join('\n');
  const settingsFile = path.join(layout.dataDir, 'statusvane.conf');
  fs.writeFileSync(settingsFile, settings);
  const mainConf = path.join(layout.dataDir, 'postgresql.conf');
  const conf = fs.readFileSync(mainConf, 'utf8');
  if (!conf.includes("include_if_exists 'statusvane.conf'")) {
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
  log.progress(`initialising PostgreSQL ${pg.major} data dir ${layout.dataDir}`);
  const entries = fs.readdirSync(layout.dataDir);
  if (entries.length > 0) {
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
  try {
    const port = Number(fs.readFileSync(path.join(layout.dataDir, 'postmaster.pid'), 'utf8').split('\n')[3]);
    return Number.isInteger(port) && port > 0 ? port : null;
  } catch {
    return null;
  }
}

/** PID of the live postmaster of this data dir, or null (with log: removes a stale postmaster.pid). */
function livePostmaster(layout, log) {
  const pidFile = path.join(layout.dataDir, 'postmaster.pid');
  const pid = readPidFile(pidFile);
  if (pid === null) return null;
  if (pidAlive(pid, 'postgres') || pidAlive(pid, 'postmaster')) return pid;
  if (log && pidExists(pid)) {
    // The PID is a zombie (a killed postmaster nobody reaped) or was reused by an unrelated
    // process (typical after a container restart): the postmaster would refuse to start
    // while this file points at an existing PID.
    log.warn(`removing stale ${pidFile} (pid ${pid} is not a running postgres process)`);
    try {
      fs.rmSync(pidFile, { force: true });
    } catch {
      /* ignore */
    }
  }
  return null;
}

/** Remove socket lock files left by a postmaster that is gone (or a zombie). */
function removeStaleSocketLocks(layout, port, log) {
  for (const dir of new Set([layout.dataDir, '/tmp'])) {
    const lock = path.join(dir, `.s.PGSQL.${port}.lock`);
    const pid = readPidFile(lock);
    if (pid === null || pidAlive(pid, 'postgres') || pidAlive(pid, 'postmaster') || !pidExists(pid)) continue;
    log.warn(`removing stale ${lock} (pid ${pid} is not a running postgres process)`);
    fs.rmSync(lock, { force: true });
    fs.rmSync(path.join(dir, `.s.PGSQL.${port}`), { force: true });
  }
}

async function pgAcceptingConnections(pg, port) {
  if (pg?.pgIsready) {
    const res = await run(
      pg.pgIsready,
      ['-q', '-h', HOST, '-p', String(port), '-U', PG_SUPERUSER, '-d', 'postgres', '-t', '2'],
      {
        env: cleanPgEnv(),
        timeoutMs: 5000,
      },
    );
    return res.code === 0;
  }
  return tcpOpen(port);
}

function cleanPgEnv() {
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('PG')) env[k] = v;
  env.PGCONNECT_TIMEOUT = '5';
  return env;
}

function psql(pg, port, args, { user = PG_SUPERUSER, db = 'postgres' } = {}) {
  return run(
    pg.psql,
    ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-tA', '-h', HOST, '-p', String(port), '-U', user, '-d', db, ...args],
    { env: cleanPgEnv(), timeoutMs: 30_000 },
  );
}

async function psqlValue(pg, port, sql) {
  const res = await psql(pg, port, ['-c', sql]);
  if (res.code !== 0) throw new Error(describeFailure(`psql -c ${JSON.stringify(sql)}`, res));
  return res.stdout.trim();
}

async function psqlExec(pg, port, sql, { tolerate } = {}) {
  const res = await psql(pg, port, ['-c', sql]);
  if (res.code !== 0 && !(tolerate && tolerate.test(res.stderr))) {
    throw new Error(describeFailure(`psql -c ${JSON.stringify(sql)}`, res));
  }
}

/** Idempotently create the statusvane role (LOGIN CREATEDB) and database. */
async function bootstrapPgDatabase(log, pg, port) {
  const role = await psqlValue(
    pg,
    port,
    `SELECT rolcanlogin AND rolcreatedb FROM pg_roles WHERE rolname = '${DB_USER}'`,
  );
  if (role === '') {
    log.info(`creating role ${DB_USER}`);
    await psqlExec(pg, port, `CREATE ROLE ${DB_USER} WITH LOGIN CREATEDB PASSWORD '${dbPassword()}'`, {
      tolerate: /already exists/,
    });
  }
  // Every time, so that a cluster made before the password was generated (or a lost .data/pg-password) matches it.
  await psqlExec(pg, port, `ALTER ROLE ${DB_USER} WITH LOGIN CREATEDB PASSWORD '${dbPassword()}'`);
  // DROP DATABASE ... WITH (FORCE) of a test's scratch database must be able to end an autovacuum worker that is
  // still in it (its backend has no role this one is a member of).
  await psqlExec(pg, port, `GRANT pg_signal_backend TO ${DB_USER}`);
  const db = await psqlValue(pg, port, `SELECT 1 FROM pg_database WHERE datname = '${DB_NAME}'`);
  if (db === '') {
    log.info(`creating database ${DB_NAME}`);
    await psqlExec(pg, port, `CREATE DATABASE ${DB_NAME} OWNER ${DB_USER}`, { tolerate: /already exists/ });
  }
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
    if (await waitUntil(() => pgAcceptingConnections(pg, port))) {
      log.info(`PostgreSQL already running (pid ${running}, ${where})`);
      await bootstrapPgDatabase(log, pg, port);
      return url;
    }
    throw new Error(
      withLogTail(
        `PostgreSQL from ${layout.dataDir} is running (pid ${running}) but not accepting connections on ${HOST}:${port} ` +
          `(was it started with another SV_PG_PORT? run \`node scripts/services.mjs stop\` first)`,
        layout.logFile,
      ),
    );
  }

  if (await tcpOpen(port)) {
    // Something else holds the port. Reuse it only if it already serves our database.
    const res = await run(pg.psql, ['-X', '-tA', '-c', 'select 1', url], { env: cleanPgEnv(), timeoutMs: 10_000 });
    if (res.code === 0) {
      log.warn(`${HOST}:${port} is served by a PostgreSQL not started from ${layout.dataDir}; using it as is`);
      return url;
    }
    throw new Error(portTakenMessage('PostgreSQL', port, 'SV_PG_PORT', 'DATABASE_URL'));
  }

  await writePgSettings(layout, port);
  removeStaleSocketLocks(layout, port, log);
  log.progress(`starting PostgreSQL ${pg.major} on ${HOST}:${port} (data ${where})`);
  const res = await run(
    pg.pgCtl,
    ['start', '-D', layout.dataDir, '-l', layout.logFile, '-w', '-t', String(READY_TIMEOUT_MS / 1000), '-s'],
    { asPg: true, timeoutMs: READY_TIMEOUT_MS + 15_000 },
  );
  if (res.code !== 0) {
    throw new Error(withLogTail(describeFailure('pg_ctl start', res), layout.logFile));
  }
  if (!(await waitUntil(() => pgAcceptingConnections(pg, port)))) {
    throw new Error(
      withLogTail(
        `PostgreSQL did not accept connections on ${HOST}:${port} within ${READY_TIMEOUT_MS / 1000}s`,
        layout.logFile,
      ),
    );
  }
  await bootstrapPgDatabase(log, pg, port);
  log.info(`PostgreSQL ready: ${url}`);
  return url;
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

function redisLayout() {
  return {
    dir: path.join(DATA_DIR, 'redis'),
    pidFile: path.join(DATA_DIR, 'redis.pid'),
    portFile: path.join(DATA_DIR, 'redis.port'),
    logFile: path.join(DATA_DIR, 'redis.log'),
  };
}

function liveRedisPid(layout) {
  const pid = readPidFile(layout.pidFile);
  return pid !== null && pidAlive(pid, 'redis') ? pid : null;
}

const isPong = (reply) => reply === '+PONG';
const isLoading = (reply) => typeof reply === 'string' && reply.startsWith('-LOADING');

function portTakenMessage(what, port, portVar, urlVar) {
  return (
    `${HOST}:${port} is already in use by something that is not this checkout's ${what}: ` +
    `stop it, pick another port with ${portVar}=..., or point ${urlVar} at an existing server`
  );
}

async function ensureRedis(log, redisServer) {
  const port = redisPort();
  const url = localRedisUrl();
  const layout = redisLayout();
  const ours = liveRedisPid(layout);
  const reply = await redisPing(port);

  if (isPong(reply)) {
    if (ours !== null) log.info(`Redis already running (pid ${ours}, dir ${layout.dir})`);
    else log.warn(`${HOST}:${port} is served by a Redis not started from ${layout.dir}; using it as is`);
    return url;
  }
  if (ours !== null) {
    const recorded = readPidFile(layout.portFile);
    if (recorded !== null && recorded !== port) {
      throw new Error(
        `Redis from ${layout.dir} is already running (pid ${ours}) on port ${recorded}, not ${port}: ` +
          `run \`node scripts/services.mjs stop\` with the old SV_REDIS_PORT first, or unset SV_REDIS_PORT`,
      );
    }
  }
  if (ours !== null || isLoading(reply)) {
    if (await waitUntil(async () => isPong(await redisPing(port)))) return url;
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
      `${portTakenMessage('Redis', port, 'SV_REDIS_PORT', 'REDIS_URL')} (it answered ${JSON.stringify(reply)})`,
    );
  }

  fs.mkdirSync(layout.dir, { recursive: true });
  log.progress(`starting Redis on ${HOST}:${port} (dir ${layout.dir}, log ${layout.logFile})`);
  const args = [
    '--port',
    String(port),
    '--bind',
    HOST,
    '--dir',
    layout.dir,
    '--appendonly',
    'yes',
    '--maxmemory-policy',
    'noeviction',
    '--daemonize',
    'yes',
    '--pidfile',
    layout.pidFile,
    '--logfile',
    layout.logFile,
    '--save',
    '',
  ];
  fs.writeFileSync(layout.portFile, `${port}\n`);
  const res = await run(redisServer, args, { timeoutMs: READY_TIMEOUT_MS });
  if (res.code !== 0) throw new Error(withLogTail(describeFailure('redis-server', res), layout.logFile));
  if (!(await waitUntil(async () => isPong(await redisPing(port))))) {
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
  const recorded = readPidFile(layout.portFile);
  const port = recorded ?? redisPort();
  if (pid === null) {
    const reply = await redisPing(port);
    return isPong(reply)
      ? 'not running (a Redis not started from .data answers on its port; left alone)'
      : 'not running';
  }
  log.info(`stopping Redis (pid ${pid})`);
  // Prefer SHUTDOWN NOSAVE (we run with save "" and AOF), but only if the server on our port is ours.
  let sent = false;
  if ((await redisServerPid(port)) === pid) {
    await redisCommand(port, ['SHUTDOWN', 'NOSAVE']);
    sent = true;
  }
  if (!sent || !(await waitForPidExit(pid, 15_000))) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
  }
  if (await waitForPidExit(pid, 15_000)) return 'stopped';
  throw new Error(withLogTail(`Redis (pid ${pid}) did not stop within 30s`, layout.logFile));
}

/** process_id reported by INFO server on port, or null. */
function redisServerPid(port) {
  return new Promise((resolve) => {
    const sock = net.connect({ port, host: HOST });
    let buf = '';
    const done = (v) => {
      sock.destroy();
      resolve(v);
    };
    sock.setTimeout(1500, () => done(null));
    sock.once('connect', () => sock.write('*2\r\n$4\r\nINFO\r\n$6\r\nserver\r\n'));
    sock.on('data', (d) => {
      buf += d.toString('utf8');
      const m = /process_id:(\d+)/.exec(buf);
      if (m) done(Number(m[1]));
      else if (buf.startsWith('-')) done(null);
    });
    sock.once('error', () => done(null));
    sock.once('end', () => done(null));
  });
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
 * Stop the services this checkout manages (not those given by DATABASE_URL / REDIS_URL,
 * nor servers on our ports that were not started from .data).
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
    const layout = existingPgLayout();
    const pid = layout ? livePostmaster(layout) : null;
    const pg = await findPg(layout ? dataDirMajor(layout.dataDir) : null);
    const accepting = await pgAcceptingConnections(pg.missing ? null : pg, port);
    status.postgres = {
      managed: true,
      running: pid !== null && accepting,
      pid,
      portInUse: accepting || (await tcpOpen(port)),
      url: localDatabaseUrl(),
      dataDir: layout?.dataDir ?? pgLayouts().primary.dataDir,
      logFile: layout?.logFile ?? pgLayouts().primary.logFile,
    };
  } else {
    status.postgres = {
      managed: false,
      url: process.env.DATABASE_URL,
      reachable: await urlReachable(process.env.DATABASE_URL, 5432),
    };
  }
  if (redisManaged()) {
    const port = redisPort();
    const layout = redisLayout();
    const pid = liveRedisPid(layout);
    const reply = await redisPing(port);
    status.redis = {
      managed: true,
      running: pid !== null && isPong(reply),
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
    const host = u.hostname.replace(/^\[|\]$/g, '') || 'localhost';
    return await tcpOpen(Number(u.port) || defaultPort, host, 2000);
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

async function main(argv) {
  const cmd = argv[0];
  switch (cmd) {
    case 'start': {
      const urls = await ensureServices({ quiet: false });
      printEnv(urls);
      return 0;
    }
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
  if (!process.argv[1]) return false;
  try {
    return fs.realpathSync(path.resolve(process.argv[1])) === fs.realpathSync(SCRIPT_PATH);
  } catch {
    return false;
  }
}

if (invokedDirectly()) {
  for (const sig of ['SIGINT', 'SIGTERM']) {
    process.on(sig, () => {
      releaseLockSync();
      process.exit(130);
    });
  }
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      process.stderr.write(`[services] error: ${err?.message ?? err}\n`);
      process.exit(1);
    },
  );
}
