import { createHash, timingSafeEqual } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Registry } from 'prom-client';

/** Constant-time check of `Authorization: Bearer <token>` (digests compared, so the length does not leak either). */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const m = header ? /^Bearer[ ]+(\S+)\s*$/i.exec(header) : null;
  if (!m) return false;
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(m[1]!), digest(token));
}

/**
 * Answers a scrape: the registry in Prometheus text format, or 401 when a token is configured and not presented.
 * Usable as a plain node:http listener and as an Express handler.
 */
export function serveMetrics(registry: Registry, token: string | null) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    if (token && !bearerMatches(req.headers.authorization, token)) {
      res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer realm="metrics"' });
      res.end('unauthorized\n');
      return;
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (err: Error) => {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(`metrics collection failed: ${err.message}\n`);
      },
    );
  };
}

export interface MetricsServer {
  server: http.Server;
  /** The bound port (useful with port 0). */
  port(): number;
  close(): Promise<void>;
}

/**
 * The separate metrics listener: only `GET /metrics`, on `host:port` (127.0.0.1 by default, so it is not public),
 * with the bearer token too when one is configured. Resolves once listening; rejects if the port is taken.
 */
export function startMetricsServer(opts: {
  registry: Registry;
  port: number;
  host: string;
  token: string | null;
}): Promise<MetricsServer> {
  const handle = serveMetrics(opts.registry, opts.token);
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found: scrape GET /metrics\n');
      return;
    }
    handle(req, res);
  });
  server.keepAliveTimeout = 65_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve({
        server,
        port: () => (server.address() as AddressInfo).port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

/**
 * Default metrics ports, one per kind of process so an API and a worker on one host do not collide. Several workers
 * (or APIs) on one host need a METRICS_PORT each: the second one to start finds the port taken and runs without
 * metrics, saying so in an error line (see exposeMetrics).
 */
export const DEFAULT_METRICS_PORTS = { api: 9464, worker: 9465 } as const;

/** 127.0.0.0/8, ::1 (also IPv4-mapped) and `localhost`: where an unauthenticated listener is not reachable from outside. */
export function isLoopbackHost(host: string): boolean {
  if (host.toLowerCase() === 'localhost') return true;
  if (!ipaddr.isValid(host)) return false;
  let addr = ipaddr.parse(host);
  if (addr instanceof ipaddr.IPv6 && addr.isIPv4MappedAddress()) addr = addr.toIPv4Address();
  return addr.range() === 'loopback';
}

export interface ExposedMetrics {
  /** The bound port, or null when there is no listener (METRICS_PORT=0, or the port was taken). */
  port: number | null;
  /** The bound address (`127.0.0.1` by default), or null without a listener. */
  address: string | null;
  close(): Promise<void>;
}

/**
 * Starts the metrics listener a process is configured for (METRICS_PORT, 0 = none; METRICS_HOST; METRICS_TOKEN) and
 * logs where it is. Metrics are not worth failing a process for: a port that is taken is logged as an error and the
 * process runs on without them. A listener on a non-loopback address without a token serves anyone who can reach it:
 * allowed (a private network may be what the operator wants), but warned about once at start-up.
 */
export async function exposeMetrics(opts: {
  registry: Registry;
  config: { port: number | null; host: string; token: string | null };
  defaultPort: number;
  logger: {
    info(msg: string, meta?: object): unknown;
    warn(msg: string, meta?: object): unknown;
    error(msg: string, meta?: object): unknown;
  };
}): Promise<ExposedMetrics> {
  const none: ExposedMetrics = { port: null, address: null, close: async () => undefined };
  const port = opts.config.port ?? opts.defaultPort;
  if (port === 0) return none;
  const { host, token } = opts.config;
  try {
    const s = await startMetricsServer({ registry: opts.registry, port, host, token });
    opts.logger.info(`metrics on http://${host}:${s.port()}/metrics${token ? ' (bearer token required)' : ''}`);
    if (!token && !isLoopbackHost(host)) {
      opts.logger.warn(
        'metrics are served without a token on a non-loopback address: set METRICS_TOKEN, or bind METRICS_HOST to 127.0.0.1',
        { host, port: s.port() },
      );
    }
    return { port: s.port(), address: (s.server.address() as AddressInfo).address, close: () => s.close() };
  } catch (err) {
    const taken = (err as NodeJS.ErrnoException).code === 'EADDRINUSE';
    opts.logger.error(
      taken
        ? `metrics port ${port} is taken (another process on this host? give each one its own METRICS_PORT); running without metrics`
        : 'metrics listener could not start; running without it',
      { host, port, error: (err as Error).message },
    );
    return none;
  }
}
