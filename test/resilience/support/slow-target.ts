import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A monitored service for the resilience suites: `/ok/...` answers 200 and `/fail/...` answers 500, each after a
 * random delay in [minMs, maxMs], so that checks are in flight (and interruptible) for a while.
 */
export async function startSlowTarget(opts: { minMs: number; maxMs: number }) {
  let hits = 0;
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    hits++;
    const status = req.url?.startsWith('/fail') ? 500 : 200;
    const t = setTimeout(
      () => {
        timers.delete(t);
        if (!res.destroyed)
          res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'broken');
      },
      opts.minMs + Math.random() * (opts.maxMs - opts.minMs),
    );
    timers.add(t);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    hits: () => hits,
    async close() {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
