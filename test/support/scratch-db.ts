/**
 * A scratch database of a suite's own, for testing a migration on rows written before it: created next to the test
 * database (same server and role) before the suite's tests, migrated to the state before a given migration, and
 * dropped after them. The suite writes rows the way the old code wrote them (`query`), migrates to the end
 * (`applyMigrations(url)`), and looks.
 */
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from '@jest/globals';
import pg from 'pg';
import { createPrisma, type PrismaClient } from '@statusvane/shared';
import { applyMigrations, DEFAULT_MIGRATIONS_DIR } from '../../scripts/migrate.js';

export interface ScratchDatabase {
  url: string;
  /** SQL on one connection, opened before the suite's tests. */
  query: (sql: string, values?: unknown[]) => Promise<pg.QueryResult>;
  /** A Prisma client on it, made on first use and closed after the suite. */
  prisma: () => PrismaClient;
}

/** `<test database>_<suffix>`, migrated up to (not including) `migration`; one suffix per suite. */
export function scratchDatabaseBefore(suffix: string, migration: string): ScratchDatabase {
  const baseUrl = new URL(process.env.DATABASE_URL!);
  const name = `${baseUrl.pathname.slice(1)}_${suffix}`;
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: baseUrl.toString() });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  let client: pg.Client | null = null;
  let prisma: PrismaClient | null = null;

  beforeAll(async () => {
    await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin(`CREATE DATABASE "${name}"`);
    const before = mkdtempSync(join(tmpdir(), `sv-${suffix}-`));
    for (const entry of readdirSync(DEFAULT_MIGRATIONS_DIR)) {
      if (entry < migration || !/^\d/.test(entry))
        cpSync(join(DEFAULT_MIGRATIONS_DIR, entry), join(before, entry), { recursive: true });
    }
    try {
      await applyMigrations(url.toString(), { migrationsDir: before });
    } finally {
      rmSync(before, { recursive: true, force: true });
    }
    client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
  }, 60_000);

  afterAll(async () => {
    await prisma?.$disconnect();
    await client?.end();
    await admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  });

  return {
    url: url.toString(),
    query: (sql, values = []) => client!.query(sql, values),
    prisma: () => (prisma ??= createPrisma(url.toString(), { max: 2 })),
  };
}
