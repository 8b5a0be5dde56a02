// The check throughput ceiling: a plain got loop, no queue, no database, COUNT requests to TARGET with CONCURRENCY in
// flight (the worker's concurrency). Like a check, each request uses a new connection (keep-alive off) and reads the
// body. Prints one JSON line: { count, ms, perSecond, failures }.
import http from 'node:http';
import got from 'got';
import { inLanes } from '../lib/lanes.js';

const target = process.env.TARGET!;
const count = Number(process.env.COUNT ?? 5000);
const concurrency = Number(process.env.CONCURRENCY ?? 50);
const warmup = Number(process.env.WARMUP ?? 200);
const agent = new http.Agent({ keepAlive: false });

async function one(): Promise<boolean> {
  const res = await got(target, {
    agent: { http: agent },
    retry: { limit: 0 },
    timeout: { request: 10_000 },
    throwHttpErrors: false,
    followRedirect: true,
  });
  return res.statusCode === 200 && res.body.length > 0;
}

async function run(n: number): Promise<number> {
  let failures = 0;
  await inLanes(n, concurrency, async () => {
    if (!(await one().catch(() => false))) failures++;
  });
  return failures;
}

await run(warmup);
const started = performance.now();
const failures = await run(count);
const ms = performance.now() - started;
process.stdout.write(`${JSON.stringify({ count, ms, perSecond: (count / ms) * 1000, failures })}\n`);
