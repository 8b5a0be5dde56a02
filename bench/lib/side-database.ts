/**
 * A side run's database of its own next to DATABASE_URL's, or `baseUrl`'s (same server and role):
 * `<database>_<suffix>`, created fresh and migrated by `create`, dropped by `drop`.
 */
import pg from 'pg';
import { createPrisma, type PrismaClient } from '@statusvane/shared';
import { applyMigrations } from '../../scripts/migrate.js';

export interface SideDatabase {
  url: string;
  /** Drops any leftover, creates and migrates it; a Prisma client on it (statements may run 10 minutes). */
  create: () => Promise<PrismaClient>;
  drop: () => Promise<void>;
}

export function sideDatabase(suffix: string, baseUrl = process.env.DATABASE_URL): SideDatabase {
  if (!baseUrl) throw new Error('DATABASE_URL is not set');
  const base = new URL(baseUrl);
  const url = new URL(base);
  url.pathname = `${base.pathname}_${suffix}`;
  const name = url.pathname.slice(1);
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: base.toString() });
    await client.connect();
    await client.query(sql).finally(() => client.end());
  };
  const drop = () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  return {
    url: url.toString(),
    drop,
    create: async () => {
      await drop();
      await admin(`CREATE DATABASE "${name}"`);
      await applyMigrations(url.toString());
      return createPrisma(url.toString(), { max: 2, statementTimeoutMs: 600_000 });
    },
  };
}
