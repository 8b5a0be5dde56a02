import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createApiServer } from '../apps/api/src/http-server.js';
import { makeHarness, type Harness } from './support/harness.js';

// What Node's HTTP server answers by itself (before Express sees a request), on a real listener and a raw socket:
// supertest and any HTTP client would refuse to send these requests.

let h: Harness;
let server: Server;
let port: number;
beforeAll(async () => {
  h = makeHarness();
  server = createApiServer(h.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await h.close();
});

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Writes `bytes` as they are and reads the first answer; resolves when the server closes the connection. */
function raw(bytes: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.setTimeout(5000, () => {
      socket.destroy();
      reject(new Error(`no answer, or the connection stayed open: ${Buffer.concat(chunks).toString('latin1')}`));
    });
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const i = line.indexOf(':');
        headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
    socket.write(bytes, 'latin1');
  });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The envelope, its content type, a request id, and a Content-Length that matches: what every answer carries. */
function expectEnvelope(res: RawAnswer, status: number, message: RegExp) {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(res.headers['x-request-id']).toMatch(UUID);
  expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.body));
  const body = JSON.parse(res.body) as { error: { code: string; message: string } };
  expect(body).toEqual({ error: { code: 'invalid_request', message: expect.stringMatching(message) } });
}

describe('answers written before Express sees a request', () => {
  it('a request line or headers over 16 KiB: 431 with the envelope, not an empty body', async () => {
    const longQuery = await raw(`GET /api/v1/monitors?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
    expectEnvelope(longQuery, 431, /larger than 16 KiB/);
    const longHeader = await raw(`GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Long: ${'b'.repeat(20_000)}\r\n\r\n`);
    expectEnvelope(longHeader, 431, /larger than 16 KiB/);
  });

  it('a HEAD refused that way gets the same status and headers, without a body', async () => {
    const res = await raw(`HEAD /healthz HTTP/1.1\r\nHost: localhost\r\nX-Long: ${'b'.repeat(20_000)}\r\n\r\n`);
    expect([res.status, res.headers['content-type'], res.body]).toEqual([431, 'application/json; charset=utf-8', '']);
    expect(res.headers['x-request-id']).toMatch(UUID);
    expect(Number(res.headers['content-length'])).toBeGreaterThan(0);
  });

  it('a control character in a header value (Idempotency-Key): 400 with the envelope', async () => {
    const res = await raw(
      'POST /api/v1/monitors HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n' +
        'Idempotency-Key: key\x01with-control\r\nContent-Length: 2\r\n\r\n{}',
    );
    expectEnvelope(res, 400, /not valid HTTP \(Invalid header value char\)/);
  });

  it('a malformed request line, or a bad header name: 400 with the envelope', async () => {
    expectEnvelope(await raw('HELLO\r\n\r\n'), 400, /not valid HTTP/);
    expectEnvelope(await raw('GET /healthz HTTP/1.1\r\nHost: localhost\r\nBad Name: x\r\n\r\n'), 400, /not valid HTTP/);
    // Both a length and chunked framing (a request smuggling shape): refused by the parser.
    expectEnvelope(
      await raw(
        'POST /api/v1/monitors HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}',
      ),
      400,
      /not valid HTTP/,
    );
  });

  it('an HTTP/1.1 request without Host: 400 with the envelope', async () => {
    expectEnvelope(await raw('GET /healthz HTTP/1.1\r\n\r\n'), 400, /needs a Host header/);
  });

  it('an Expect other than 100-continue: 417 with the envelope', async () => {
    expectEnvelope(
      await raw('GET /healthz HTTP/1.1\r\nHost: localhost\r\nExpect: teapot\r\nConnection: close\r\n\r\n'),
      417,
      /only 100-continue/,
    );
  });

  it('well-formed requests still reach the app on the same server', async () => {
    const res = await raw('GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toMatch(UUID);
    expect(JSON.parse(res.body)).toEqual({ status: 'ok' });
    // HTTP/1.0 needs no Host.
    expect((await raw('GET /healthz HTTP/1.0\r\n\r\n')).status).toBe(200);
  });
});
