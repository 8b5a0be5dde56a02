const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'EPIPE',
  'EAI_AGAIN',
]);
// Prisma's "can't reach / timed out / closed" codes, and PostgreSQL's "shutting down / cannot connect now".
const PRISMA_CODES = new Set([
  'P1001',
  'P1002',
  'P1008',
  'P1017',
  'P2024',
  '57P01',
  '57P02',
  '57P03',
  '08006',
  '08001',
  '08003',
]);
const MESSAGES = [
  /connection terminated/i,
  /timeout exceeded when trying to connect/i,
  /Connection is closed/i,
  /enableOfflineQueue options is false/i,
  /Reached the max retries per request limit/i,
  /connect ECONNREFUSED/i,
  /Can't reach database server/i,
  /the database system is (starting up|shutting down)/i,
  /terminating connection due to administrator command/i,
  /Client has encountered a connection error/i,
  /Command timed out/i,
  // node-postgres's client-side query_timeout: the server stopped answering on an open connection (a partition or a
  // frozen server; no FIN, no RST), so nothing else would end the request.
  /Query read timeout/,
  // Prisma P2028: no connection for a transaction within maxWait, the pool being stuck on a server that does not
  // answer. (Other P2028s, such as using a transaction after it ended, are bugs and stay 500.)
  /Unable to start a transaction in the given time/,
];

/**
 * True when an error means a dependency (PostgreSQL or Redis) is unreachable rather than a bug:
 * the API answers 503 `internal` for these. Walks `cause` chains, since drivers wrap each other, and Prisma's
 * `meta.driverAdapterError`: a raw query (`$queryRaw`) fails with the generic P2010 whatever happened, and only the
 * adapter's error kind there says the connection was refused, timed out or closed.
 */
export function isUnavailableError(err: unknown): boolean {
  const seen = new Set<unknown>();
  const queue: unknown[] = [err];
  while (queue.length > 0) {
    const current = queue.shift();
    if (!current || typeof current !== 'object' || seen.has(current)) continue;
    seen.add(current);
    const e = current as {
      code?: unknown;
      message?: unknown;
      cause?: unknown;
      name?: unknown;
      kind?: unknown;
      meta?: { driverAdapterError?: unknown };
    };
    if (typeof e.code === 'string' && (NETWORK_CODES.has(e.code) || PRISMA_CODES.has(e.code))) return true;
    if (typeof e.kind === 'string' && /DatabaseNotReachable|SocketTimeout|ConnectionClosed/i.test(e.kind)) return true;
    if (e.name === 'MaxRetriesPerRequestError' || e.name === 'PrismaClientInitializationError') return true;
    if (typeof e.message === 'string' && MESSAGES.some((re) => re.test(e.message as string))) return true;
    queue.push(e.cause, e.meta?.driverAdapterError);
  }
  return false;
}
