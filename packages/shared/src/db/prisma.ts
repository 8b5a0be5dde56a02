import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from '../generated/prisma/client.js';
import { registerHotPool } from './hot-query.js';

export { PrismaClient };
export { Prisma } from '../generated/prisma/client.js';
export * as DbEnums from '../generated/prisma/enums.js';

/** The defaults of createPrisma: how long a request can wait on PostgreSQL before it fails (503) instead of hanging. */
export const DB_TIMEOUTS = {
  /** Opening a connection. */
  connectMs: 3000,
  /** Server side: a statement running longer is cancelled by PostgreSQL. */
  statementMs: 10_000,
  /** Client side: no answer on an open connection for this long (a partition, a frozen server) fails the query. */
  queryMs: 11_000,
} as const;

export interface PrismaOptions {
  /** Pool size per process. */
  max?: number;
  /** Give up connecting after this long, so requests fail with 503 instead of hanging. */
  connectTimeoutMs?: number;
  /** Server-side statement timeout. */
  statementTimeoutMs?: number;
}

/** One PrismaClient per process, over node-postgres (no native engine needed). */
export function createPrisma(databaseUrl: string, opts: PrismaOptions = {}): PrismaClient {
  const connectTimeoutMs = opts.connectTimeoutMs ?? DB_TIMEOUTS.connectMs;
  const statementTimeoutMs = opts.statementTimeoutMs ?? DB_TIMEOUTS.statementMs;
  // The pool is ours, so that hot statements (hot-query.ts) run on the same connections as Prisma's queries.
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    max: opts.max ?? 10,
    connectionTimeoutMillis: connectTimeoutMs,
    statement_timeout: statementTimeoutMs,
    query_timeout: statementTimeoutMs + (DB_TIMEOUTS.queryMs - DB_TIMEOUTS.statementMs),
    idleTimeoutMillis: 30_000,
  });
  // An idle client dropped by the server (restart, failover) must not crash the process, whoever used the pool first.
  pool.on('error', () => undefined);
  // $disconnect ends the pool, as it did when the adapter made it.
  const adapter = new PrismaPg(pool, { onPoolError: () => undefined, disposeExternalPool: true });
  const prisma = new PrismaClient({
    adapter,
    // A transaction waits for a connection up to maxWait (Prisma's default: 2 s). Below the connect timeout, a
    // database that is slow to accept ended in P2028 "Unable to start a transaction" before the connect attempt
    // could fail with its own, clearer error; both answer 503 (unavailable.ts), the connect error first.
    transactionOptions: { maxWait: connectTimeoutMs + 1000 },
  });
  registerHotPool(prisma, pool);
  return prisma;
}
