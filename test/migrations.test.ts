import { copyFileSync, mkdtempSync, readFileSync, writeFileSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { checkDrift, DEFAULT_MIGRATIONS_DIR, DEFAULT_SCHEMA_PATH, migrationStatus } from '../scripts/migrate.js';

const url = process.env.DATABASE_URL!;

describe('migrations', () => {
  it('schema.prisma and prisma/migrations agree (the drift check CI runs)', async () => {
    const drift = await checkDrift(url);
    expect(drift.inSync).toBe(true);
  });

  it('the drift check fails when schema.prisma changes without a migration', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sv-drift-'));
    const schema = join(dir, 'schema.prisma');
    copyFileSync(DEFAULT_SCHEMA_PATH, schema);
    writeFileSync(schema, readFileSync(schema, 'utf8').replace('model User {\n', 'model User {\n  nickname String?\n'));
    const drift = await checkDrift(url, { schemaPath: schema });
    expect(drift.inSync).toBe(false);
    expect(drift.script).toMatch(/ALTER TABLE "users" ADD COLUMN\s+"nickname" TEXT/);
  });

  it('the test database has every migration applied and none pending', async () => {
    const status = await migrationStatus(url);
    expect(status.pending).toEqual([]);
    expect(status.failed).toEqual([]);
    expect(status.applied.length).toBeGreaterThanOrEqual(3);
  });

  it('a migration folder edited after it was applied is reported', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sv-migs-'));
    cpSync(DEFAULT_MIGRATIONS_DIR, dir, { recursive: true });
    const status0 = await migrationStatus(url, { migrationsDir: dir });
    const name = status0.applied[0]!.name;
    writeFileSync(
      join(dir, name, 'migration.sql'),
      `${readFileSync(join(dir, name, 'migration.sql'), 'utf8')}\n-- edited\n`,
    );
    const status = await migrationStatus(url, { migrationsDir: dir });
    expect(status.edited).toEqual([name]);
  });
});
