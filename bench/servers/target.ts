// A fast local check target: 200 "ok" to everything, as small as an answer gets. Its own process, so that the worker
// and the plain got loop measured against it do not share its event loop. Prints `listening <port>`.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const server = http.createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' });
  res.end('ok');
});
server.keepAliveTimeout = 5000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
