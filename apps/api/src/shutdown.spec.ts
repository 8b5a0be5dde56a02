import { describe, expect, it } from '@jest/globals';
import http from 'node:http';
import net from 'node:net';
import { once } from 'node:events';
import { createLogger } from '@statusvane/shared';
import { createLifecycle, FIRST_REQUEST_GRACE_MS } from './shutdown.js';

const logger = createLogger({ level: 'error', json: true, service: 'test', silent: true });
type Lifecycle = ReturnType<typeof createLifecycle>;

/** A real server on 127.0.0.1 and one raw connection to it, accepted (the server saw it) and not yet written on. */
async function acceptedConnection(): Promise<{ server: http.Server; socket: net.Socket; lifecycle: Lifecycle }> {
  const server = http.createServer((_req, res) => res.end('ok'));
  const lifecycle = createLifecycle(logger);
  lifecycle.track(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const accepted = once(server, 'connection');
  const socket = net.connect((server.address() as net.AddressInfo).port, '127.0.0.1');
  await once(socket, 'connect');
  await accepted;
  return { server, socket, lifecycle };
}

async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(done()).toBe(true);
}

/** Everything the server sends on `socket` until it closes it (or resets it: then `reset` is true). */
function readAll(socket: net.Socket): Promise<{ text: string; reset: boolean; at: number }> {
  let text = '';
  let reset = false;
  socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
  socket.on('error', () => (reset = true));
  return once(socket, 'close').then(() => ({ text, reset, at: Date.now() }));
}

describe('createLifecycle().drain', () => {
  it('answers a request that comes after the listener closed on a connection accepted before, then closes it', async () => {
    const { server, socket, lifecycle } = await acceptedConnection();
    const read = readAll(socket);
    const drained = lifecycle.drain(0);
    // The listener is closed at once: a new connection is refused.
    expect(server.listening).toBe(false);
    await new Promise((r) => setTimeout(r, 50));
    socket.write('PATCH / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}');
    const { text, reset } = await read;
    expect(reset).toBe(false);
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(text).toMatch(/\r\nConnection: close\r\n/i);
    expect(text.endsWith('\r\n\r\nok')).toBe(true);
    await drained;
  });

  it('answers the next request of a keep-alive connection that comes just after the listener closed', async () => {
    const { socket, lifecycle } = await acceptedConnection();
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
    socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await until(() => text.endsWith('\r\n\r\nok'));
    expect(text).toMatch(/\r\nConnection: keep-alive\r\n/i);
    text = '';
    // Idle between two requests when the listener closes: a balancer's pooled connection, reused a moment later.
    const read = readAll(socket);
    const drained = lifecycle.drain(0);
    await new Promise((r) => setTimeout(r, 50));
    socket.write('PATCH / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}');
    const { reset } = await read;
    expect(reset).toBe(false);
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(text).toMatch(/\r\nConnection: close\r\n/i);
    await drained;
  });

  it('closes a connection that sends nothing after FIRST_REQUEST_GRACE_MS, and resolves', async () => {
    const { socket, lifecycle } = await acceptedConnection();
    const read = readAll(socket);
    const t0 = Date.now();
    await lifecycle.drain(0);
    const { text, at } = await read;
    expect(text).toBe('');
    expect(at - t0).toBeGreaterThanOrEqual(FIRST_REQUEST_GRACE_MS - 20);
    expect(at - t0).toBeLessThan(FIRST_REQUEST_GRACE_MS + 1000);
  });

  it('resolves at once when no connection is open', async () => {
    const server = http.createServer((_req, res) => res.end('ok'));
    const lifecycle = createLifecycle(logger);
    lifecycle.track(server);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const t0 = Date.now();
    await lifecycle.drain(0);
    expect(Date.now() - t0).toBeLessThan(FIRST_REQUEST_GRACE_MS / 2);
  });
});
