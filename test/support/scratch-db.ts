/**
 * A scratch database of a suite's own, for testing a migration on rows written before it: created empty next to the
 * test database (same server and role), migrated to the state before a given migration, dropped at the end.
 */
import { cpSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { applyMigrations, DEFAULT_MIGRATIONS_DIR } from '../../scripts/migrate.js';

export interface ScratchDatabase {
  url: string;
  /** Creates it anew and applies every migration before `migration` (by name order). */
  createBefore(migration: string): Promise<void>;
  drop(): Promise<void>;
}

/** `<test database>_<suffix>`: one name per suite, so that suites running in parallel never share one. */
export function scratchDatabase(suffix: string): ScratchDatabase {
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
  const drop = () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  return {
    url: url.toString(),
    drop,
    async createBefore(migration) {
      await drop();
      await admin(`CREATE DATABASE "${name}"`);
      const before = mkdtempSync(join(tmpdir(), `sv-${suffix}-`));
      for (const entry of readdirSync(DEFAULT_MIGRATIONS_DIR)) {
        if (entry < migration || !/^\d/.test(entry))
          cpSync(join(DEFAULT_MIGRATIONS_DIR, entry), join(before, entry), { recursive: true });
      }
      await applyMigrations(url.toString(), { migrationsDir: before });
    },
  };
}
