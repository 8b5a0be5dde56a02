// A fast local check target: 200 "ok" to everything, as small as an answer gets. Its own process, so that the worker
// and the plain got loop measured against it do not share its event loop. Prints `listening <port>`. DELAY_MS makes
// every answer that much later (the over-capacity scenario: a worker whose capacity is its concurrency / the delay).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { inLanes } from '../lib/lanes.js';

const delayMs = Number(process.env.DELAY_MS ?? 0);
const server = http.createServer((_req, res) => {
  const answer = () => {
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' });
    res.end('ok');
  };
  if (delayMs > 0) setTimeout(answer, delayMs);
  else answer();
});
server.keepAliveTimeout = 5000;

/**
 * Its own code warmed before it is used: the target stands for the sites checked, which do not start cold with the
 * bench, and its first few thousand answers on code V8 has not compiled yet took several times the CPU of later ones,
 * on the same two cores as the workers (docs/benchmarks.md, twenty-first pass). Each request on a connection of its
 * own, as the checks' are.
 */
async function warmUp(port: number, requests: number): Promise<void> {
  const agent = new http.Agent({ keepAlive: false });
  await inLanes(
    requests,
    20,
    () =>
      new Promise<void>((resolve, reject) => {
        http
          .get({ host: '127.0.0.1', port, path: '/health', agent }, (res) => {
            res.resume();
            res.on('end', resolve);
          })
          .on('error', reject);
      }),
  );
}

server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  // Not with a delay (the over-capacity scenario): its answers wait on timers, not on the target's code.
  void warmUp(port, delayMs > 0 ? 0 : 3000).then(() => process.stdout.write(`listening ${port}\n`));
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
