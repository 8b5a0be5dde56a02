import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client.js';

export { PrismaClient };
export { Prisma } from '../generated/prisma/client.js';
export * as DbEnums from '../generated/prisma/enums.js';

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
  const adapter = new PrismaPg(
    {
      connectionString: databaseUrl,
      max: opts.max ?? 10,
      connectionTimeoutMillis: opts.connectTimeoutMs ?? 3000,
      statement_timeout: opts.statementTimeoutMs ?? 10_000,
      query_timeout: (opts.statementTimeoutMs ?? 10_000) + 1000,
      idleTimeoutMillis: 30_000,
    },
    // An idle client dropped by the server (restart, failover) must not crash the process.
    { onPoolError: () => undefined },
  );
  return new PrismaClient({ adapter });
}
