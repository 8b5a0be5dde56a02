// The API scenarios' baseline: bare Express 5 answering a small JSON object, same settings as the API's app, in its
// own process. Prints `listening <port>`.
import type { AddressInfo } from 'node:net';
import express from 'express';

const app = express();
app.disable('x-powered-by');
app.set('query parser', 'simple');
app.get('/', (_req, res) => {
  res.json({ data: { id: '4b1c2a57-3f1e-4d8b-9a51-6e2f0c7d8e90', name: 'Homepage', status: 'up' } });
});
const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});
server.keepAliveTimeout = 65_000;
process.on('SIGTERM', () => server.close(() => process.exit(0)));
