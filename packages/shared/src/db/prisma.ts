import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client.js';

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

/**
 * Raw SQL that starts with this comment is prepared once per connection (a named statement) and its plan reused:
 * for a statement run on a hot path whose planning costs about as much as its execution (the ping writer's).
 * Only marked statements are named: a connection keeps every statement it prepared until it closes, so the set must
 * be small and fixed, never text built per call.
 */
export const PREPARED_SQL = '/* prepared */';

const statementNames = new Map<string, string>();
/** The name of a marked statement (the same text: the same name, in every connection of the process). */
function statementNameOf(query: { sql: string }): string | undefined {
  if (!query.sql.startsWith(PREPARED_SQL)) return undefined;
  let name = statementNames.get(query.sql);
  if (name === undefined) statementNames.set(query.sql, (name = `sv_prepared_${statementNames.size + 1}`));
  return name;
}

/** One PrismaClient per process, over node-postgres (no native engine needed). */
export function createPrisma(databaseUrl: string, opts: PrismaOptions = {}): PrismaClient {
  const connectTimeoutMs = opts.connectTimeoutMs ?? DB_TIMEOUTS.connectMs;
  const statementTimeoutMs = opts.statementTimeoutMs ?? DB_TIMEOUTS.statementMs;
  const adapter = new PrismaPg(
    {
      connectionString: databaseUrl,
      max: opts.max ?? 10,
      connectionTimeoutMillis: connectTimeoutMs,
      statement_timeout: statementTimeoutMs,
      query_timeout: statementTimeoutMs + (DB_TIMEOUTS.queryMs - DB_TIMEOUTS.statementMs),
      idleTimeoutMillis: 30_000,
    },
    // An idle client dropped by the server (restart, failover) must not crash the process.
    // The adapter passes the name to node-postgres as it is: undefined (its type says string) is an unnamed statement.
    { onPoolError: () => undefined, statementNameGenerator: statementNameOf as (query: { sql: string }) => string },
  );
  return new PrismaClient({
    adapter,
    // A transaction waits for a connection up to maxWait (Prisma's default: 2 s). Below the connect timeout, a
    // database that is slow to accept ended in P2028 "Unable to start a transaction" before the connect attempt
    // could fail with its own, clearer error; both answer 503 (unavailable.ts), the connect error first.
    transactionOptions: { maxWait: connectTimeoutMs + 1000 },
  });
}
