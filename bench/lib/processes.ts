/**
 * Child processes of the benchmark: the API and worker as built (`node apps/*\/dist/main.js`), and the helper servers
 * under bench/servers (run through tsx). Every child is tracked, killed when the bench ends however it ends, and
 * its last output is kept for error messages.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { join } from 'node:path';
import { ROOT } from './paths.js';

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Polls `fn` until it returns something truthy; bounded by `timeoutMs`. */
export async function until<T>(
  fn: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  timeoutMs: number,
  label: string,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${label}${lastError ? ` (${(lastError as Error).message})` : ''}`,
      );
    await sleep(everyMs);
  }
}

/** A loopback port nothing listens on right now. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

export interface Child {
  name: string;
  pid: number;
  output(): string;
  alive(): boolean;
  /** Resolves when the process printed a line matching `re`. */
  waitFor(re: RegExp, timeoutMs: number): Promise<string>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it is gone. */
  stop(graceMs?: number): Promise<void>;
}

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of live) c.kill('SIGKILL');
});

export function spawnChild(name: string, args: string[], env: NodeJS.ProcessEnv): Child {
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  let out = '';
  let exited = false;
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    out += chunk.toString('utf8');
    if (out.length > 200_000) out = out.slice(-100_000);
    for (const w of waiters) w();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  if (process.env.BENCH_LOG) child.stderr!.on('data', (c: Buffer) => process.stderr.write(`[${name}] ${c.toString()}`));
  const gone = new Promise<void>((r) =>
    child.once('exit', () => {
      exited = true;
      live.delete(child);
      for (const w of waiters) w();
      r();
    }),
  );
  return {
    name,
    pid: child.pid!,
    output: () => out,
    alive: () => !exited,
    waitFor(re, timeoutMs) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = re.exec(out);
          if (m) {
            done();
            resolve(m[0]);
          } else if (exited) {
            done();
            reject(new Error(`${name} exited (code ${child.exitCode}) before printing ${re}:\n${out.slice(-3000)}`));
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`${name} did not print ${re} within ${timeoutMs} ms:\n${out.slice(-3000)}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    async stop(graceMs = 10_000) {
      if (exited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await gone;
      clearTimeout(timer);
    },
  };
}

/**
 * `node --import tsx <file>`: one process, so that its PID is the server's (the CPU per request of the baseline is
 * read from it; tsx's CLI would put a wrapper process in front).
 */
const TSX_IMPORT = ['--import', 'tsx'];

/** A helper server from bench/servers, run through tsx; it prints `listening <port>` when ready. */
export async function startHelper(
  name: string,
  file: string,
  env: Record<string, string> = {},
): Promise<{ child: Child; port: number }> {
  const child = spawnChild(name, [...TSX_IMPORT, join(ROOT, 'bench/servers', file)], { ...process.env, ...env });
  const line = await child.waitFor(/listening (\d+)/, 30_000);
  return { child, port: Number(/(\d+)/.exec(line)![1]) };
}

/** Stops every child still running (the bench's finally). */
export async function stopAll(children: Iterable<Child | undefined>): Promise<void> {
  await Promise.all([...children].filter((c): c is Child => !!c).map((c) => c.stop().catch(() => undefined)));
}
