// A fast local check target: 200 "ok" to everything, as small as an answer gets. Its own process, so that the worker
// and the plain got loop measured against it do not share its event loop. Prints `listening <port>`. DELAY_MS makes
// every answer that much later (the over-capacity scenario: a worker whose capacity is its concurrency / the delay).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

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
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
