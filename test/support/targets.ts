/**
 * Local targets for probe integration tests: plain `http` / `net` servers on loopback only. Nothing here
 * ever connects anywhere; the probes under test connect to these.
 *
 * HTTP routes (query and path parameters):
 *   /status/<code>            responds <code> with body "status <code>"
 *   /delay/<ms>               waits <ms> then 200 "delayed <ms>"
 *   /slow-body/<ms>           sends headers and "start" at once, the rest of the body after <ms>
 *   /body?text=..&type=..     200 with the given text (Content-Type `type`, default text/plain)
 *   /gzip?text=..             the text gzip-encoded (Content-Encoding: gzip)
 *   /json                     200 with the JSON set by `setJson` (default {"status":"ok"})
 *   /redirect?to=<url>&status=<3xx>   redirect (default 302) to `to`
 *   /redirect-chain/<n>       n redirects (302) through /redirect-chain/<n-1> ... /redirect-chain/0 -> 200 "chain end"
 *   /slow-chain/<n>/<ms>      like /redirect-chain, but every hop (the final 200 included) waits <ms> first
 *   /reset                    destroys the socket without a response
 *   /echo-headers             200 with the request headers as JSON
 *   /echo                     200 with { method, headers, body } as JSON
 *   /big?size=<bytes>         200 streaming `size` bytes (default 5 MiB): "BEGIN", filler "x", "END" at the very end
 *   anything else             200 "ok"
 *
 * Also: `startTlsTarget` (https with a self-signed certificate that no client trusts), `startTcpTarget`,
 * `findClosedPort`.
 */
import { once } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

export interface RecordedRequest {
  method: string;
  /** Path with query string, as received. */
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Target {
  host: string;
  port: number;
  /** `http://<host>:<port><path>`; `path` defaults to `/`. */
  url(path?: string): string;
  /** Every request received, in arrival order (recorded once its body has been read). */
  requests: RecordedRequest[];
  setJson(value: unknown): void;
  /** Bytes written by /big responses so far (to show a capped reader stopped early). */
  bigBytesWritten(): number;
  close(): Promise<void>;
}

const FIVE_MIB = 5 * 1024 * 1024;

function hostForUrl(host: string): string {
  return net.isIPv6(host) ? `[${host}]` : host;
}

export async function startTarget(options: { host?: string } = {}): Promise<Target> {
  const host = options.host ?? '127.0.0.1';
  const requests: RecordedRequest[] = [];
  let json: unknown = { status: 'ok' };
  let bigWritten = 0;
  const timers = new Set<NodeJS.Timeout>();
  const later = (msDelay: number, fn: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, msDelay);
    timers.add(t);
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawPath = req.url ?? '/';
      requests.push({
        method: req.method ?? '',
        path: rawPath,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      route(req, res, new URL(rawPath, 'http://target.invalid'), Buffer.concat(chunks).toString('utf8'));
    });
  });

  function route(req: http.IncomingMessage, res: http.ServerResponse, u: URL, body: string): void {
    const parts = u.pathname.split('/').filter(Boolean);
    const send = (status: number, text: string, type = 'text/plain; charset=utf-8') => {
      res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) });
      res.end(text);
    };
    switch (parts[0]) {
      case 'status': {
        const code = Number(parts[1] ?? 200);
        send(code, `status ${code}`);
        return;
      }
      case 'delay': {
        const d = Number(parts[1] ?? 0);
        later(d, () => {
          if (!res.destroyed) send(200, `delayed ${d}`);
        });
        return;
      }
      case 'slow-body': {
        const d = Number(parts[1] ?? 0);
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('start ');
        later(d, () => {
          if (!res.destroyed) res.end('end');
        });
        return;
      }
      case 'body':
        send(200, u.searchParams.get('text') ?? '', u.searchParams.get('type') ?? 'text/plain; charset=utf-8');
        return;
      case 'gzip': {
        const gz = gzipSync(Buffer.from(u.searchParams.get('text') ?? '', 'utf8'));
        res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip', 'content-length': gz.length });
        res.end(gz);
        return;
      }
      case 'json':
        send(200, JSON.stringify(json), 'application/json');
        return;
      case 'redirect': {
        const to = u.searchParams.get('to') ?? '/';
        res.writeHead(Number(u.searchParams.get('status') ?? 302), { location: to, 'content-length': 0 });
        res.end();
        return;
      }
      case 'redirect-chain': {
        const n = Number(parts[1] ?? 0);
        if (n <= 0) {
          send(200, 'chain end');
        } else {
          res.writeHead(302, { location: `/redirect-chain/${n - 1}`, 'content-length': 0 });
          res.end();
        }
        return;
      }
      case 'slow-chain': {
        const n = Number(parts[1] ?? 0);
        const d = Number(parts[2] ?? 0);
        later(d, () => {
          if (res.destroyed) return;
          if (n <= 0) {
            send(200, 'chain end');
          } else {
            res.writeHead(302, { location: `/slow-chain/${n - 1}/${d}`, 'content-length': 0 });
            res.end();
          }
        });
        return;
      }
      case 'reset':
        req.socket.destroy();
        return;
      case 'echo-headers':
        send(200, JSON.stringify(req.headers), 'application/json');
        return;
      case 'echo':
        send(200, JSON.stringify({ method: req.method, headers: req.headers, body }), 'application/json');
        return;
      case 'big': {
        const size = Number(u.searchParams.get('size') ?? FIVE_MIB);
        res.writeHead(200, { 'content-type': 'text/plain', 'content-length': size });
        let offset = 0;
        const writeMore = (): void => {
          while (offset < size && !res.destroyed) {
            const len = Math.min(64 * 1024, size - offset);
            const chunk = Buffer.alloc(len, 'x');
            // "BEGIN" at the very start and "END" at the very end of the body, even across chunks.
            for (const [text, at] of [
              ['BEGIN', 0],
              ['END', size - 3],
            ] as const) {
              for (let k = 0; k < text.length; k++) {
                const pos = at + k - offset;
                if (pos >= 0 && pos < len) chunk[pos] = text.charCodeAt(k);
              }
            }
            offset += len;
            bigWritten += len;
            if (offset === size) {
              res.end(chunk);
              return;
            }
            if (!res.write(chunk)) {
              res.once('drain', writeMore);
              return;
            }
          }
        };
        writeMore();
        return;
      }
      default:
        send(200, 'ok');
    }
  }

  server.listen(0, host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  return {
    host,
    port,
    url: (path = '/') => `http://${hostForUrl(host)}:${port}${path}`,
    requests,
    setJson(value: unknown) {
      json = value;
    },
    bigBytesWritten: () => bigWritten,
    async close() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface TcpTarget {
  host: string;
  port: number;
  /** Connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

/** A TCP server that accepts every connection (and closes it when the client does). */
export async function startTcpTarget(options: { host?: string } = {}): Promise<TcpTarget> {
  const host = options.host ?? '127.0.0.1';
  let count = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    count++;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    socket.resume();
  });
  server.listen(0, host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    host,
    port,
    connections: () => count,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A loopback port with nothing listening on it (bound once by us, then released). */
export async function findClosedPort(host = '127.0.0.1'): Promise<number> {
  const server = net.createServer();
  server.listen(0, host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Self-signed P-256 certificate for 127.0.0.1 / localhost, valid until 2126, generated for these tests only
 * (`openssl req -x509 -newkey ec ... -subj /CN=statusvane-test-self-signed`). It protects nothing: no
 * client trusts it, which is the point — probes must fail with `tls_error`.
 */
const TEST_TLS_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg2afiVP8VTG9nZqdl
YdduHqPGA/ZP9A/yV1WI0RMuee6hRANCAAQdoSIWTQ2gWAFc3fZpiF2qJeqUyBYj
Ohbcoo4DiaCDNlYuqiaT/qsBhqJY/srDOX8N5rozyr6fARQcRNEl16Pr
-----END PRIVATE KEY-----
`;
const TEST_TLS_CERT = `-----BEGIN CERTIFICATE-----
MIIBwDCCAWWgAwIBAgIUOCRVm8NUgyiRsPbmZJXl1BQgoj4wCgYIKoZIzj0EAwIw
JjEkMCIGA1UEAwwbc3RhdHVzdmFuZS10ZXN0LXNlbGYtc2lnbmVkMCAXDTI2MTEy
MjAyMTM0MVoYDzIxMjYxMDI5MDIxMzQxWjAmMSQwIgYDVQQDDBtzdGF0dXN2YW5l
LXRlc3Qtc2VsZi1zaWduZWQwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAQdoSIW
TQ2gWAFc3fZpiF2qJeqUyBYjOhbcoo4DiaCDNlYuqiaT/qsBhqJY/srDOX8N5roz
yr6fARQcRNEl16Pro28wbTAdBgNVHQ4EFgQUCzUG/B0Q+SYF/Js9CLK+iXoUgM8w
HwYDVR0jBBgwFoAUCzUG/B0Q+SYF/Js9CLK+iXoUgM8wDwYDVR0TAQH/BAUwAwEB
/zAaBgNVHREEEzARhwR/AAABgglsb2NhbGhvc3QwCgYIKoZIzj0EAwIDSQAwRgIh
AJeTp0KHmMop6GliGGAvw9Jl+6uFABvUQmkAJzaCO6vHAiEAk4n+KPFXj7VBXQAS
NzkeQig6ngXqO2DRW/M5MD8SLQA=
-----END CERTIFICATE-----
`;

export interface TlsTarget {
  host: string;
  port: number;
  url(path?: string): string;
  /** HTTP requests that got through the handshake. */
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** An https server with an untrusted (self-signed) certificate. */
export async function startTlsTarget(options: { host?: string } = {}): Promise<TlsTarget> {
  const host = options.host ?? '127.0.0.1';
  const requests: RecordedRequest[] = [];
  const server = https.createServer({ key: TEST_TLS_KEY, cert: TEST_TLS_CERT }, (req, res) => {
    requests.push({ method: req.method ?? '', path: req.url ?? '/', headers: req.headers, body: '' });
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  });
  server.on('tlsClientError', () => undefined);
  server.listen(0, host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    host,
    port,
    url: (path = '/') => `https://${hostForUrl(host)}:${port}${path}`,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
