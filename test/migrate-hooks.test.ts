/**
 * The migration runner (scripts/migrate.ts over scripts/migrate-engine.ts) leans on things Prisma does not promise:
 * private methods of @prisma/adapter-pg it replaces, and the wasm-bindgen import and export names of
 * @prisma/schema-engine-wasm it wires by hand (docs/adr/0002-migrations-on-the-wasm-schema-engine.md). A version bump
 * can move any of them; this suite says which one moved, instead of a migration failing later with "unreachable" or
 * a deploy that hangs for ten seconds.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { ColumnTypeEnum, type SqlDriverAdapter, type SqlQuery } from '@prisma/driver-adapter-utils';
import pg from 'pg';
import {
  MigrationAdapterFactory,
  parseDatabaseUrl,
  PATCHED_QUERYABLE_METHODS,
  wasmGlueProblems,
} from '../scripts/migrate-engine.js';

const url = process.env.DATABASE_URL!;

/** Where Node finds `pkg` from `fromDir` (its node_modules, then its parents'). */
function packageDir(pkg: string, fromDir = join(import.meta.dirname, '..')): string {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'node_modules', pkg, 'package.json'))) return join(dir, 'node_modules', pkg);
    if (dirname(dir) === dir) throw new Error(`${pkg} is not installed (from ${fromDir})`);
  }
}
const versionOf = (pkg: string, fromDir?: string): string =>
  (JSON.parse(readFileSync(join(packageDir(pkg, fromDir), 'package.json'), 'utf8')) as { version: string }).version;
const query = (sql: string): SqlQuery => ({ sql, args: [], argTypes: [] });

/** A `"char"` column (pg_class.relkind) beside a text one: what the engine's schema describer reads. */
const CHAR_QUERY = query(`SELECT relkind, relname::text FROM pg_class WHERE relname = 'pg_class'`);

const factories: MigrationAdapterFactory[] = [];
afterAll(async () => {
  for (const f of factories) await f.close();
});

async function adapter(): Promise<SqlDriverAdapter> {
  const factory = new MigrationAdapterFactory(parseDatabaseUrl(url));
  factories.push(factory);
  return factory.connect();
}

describe('the Prisma versions the migration runner was written against', () => {
  it('are one release for every Prisma package, and the WebAssembly engine is the build that release pins', () => {
    const engines = packageDir('@prisma/engines', packageDir('prisma'));
    const versions = {
      prisma: versionOf('prisma'),
      '@prisma/client': versionOf('@prisma/client'),
      '@prisma/adapter-pg': versionOf('@prisma/adapter-pg'),
      '@prisma/driver-adapter-utils': versionOf('@prisma/driver-adapter-utils'),
    };
    const mismatched = Object.entries(versions)
      .filter(([, v]) => v !== versions.prisma)
      .map(([name, v]) => `${name} is ${v}, prisma is ${versions.prisma}: pin every Prisma package to one release`);
    const pinned = versionOf('@prisma/engines-version', engines);
    const wasm = versionOf('@prisma/schema-engine-wasm');
    if (wasm !== pinned) {
      mismatched.push(
        `@prisma/schema-engine-wasm is ${wasm} but prisma ${versions.prisma} pins engines ${pinned}: ` +
          'install that build of the WebAssembly engine (package.json), then run this suite and test/migrations.test.ts',
      );
    }
    expect(mismatched).toEqual([]);
  });
});

describe('the wasm-bindgen build of @prisma/schema-engine-wasm', () => {
  it('has the imports and exports loadSchemaEngineRuntime and withUnrefTimers wire by name', async () => {
    const problems = (await wasmGlueProblems()).map(
      (p) => `@prisma/schema-engine-wasm ${versionOf('@prisma/schema-engine-wasm')}: ${p} (scripts/migrate-engine.ts)`,
    );
    expect(problems).toEqual([]);
  }, 60_000);
});

describe('the @prisma/adapter-pg methods MigrationAdapterFactory patches', () => {
  const where = () => `@prisma/adapter-pg ${versionOf('@prisma/adapter-pg')}`;

  it('exist on the adapter and on its transactions', async () => {
    const a = await adapter();
    const tx = await a.startTransaction();
    try {
      const missing = [
        ...['startTransaction', 'executeScript', 'dispose', 'underlyingDriver'].map((m) => ['adapter', a, m] as const),
        ...PATCHED_QUERYABLE_METHODS.map((m) => ['adapter', a, m] as const),
        ...PATCHED_QUERYABLE_METHODS.map((m) => ['transaction', tx, m] as const),
      ]
        .filter(([, o, m]) => typeof (o as unknown as Record<string, unknown>)[m] !== 'function')
        .map(([kind, , m]) => `${where()}: the ${kind} has no ${m}() (scripts/migrate-engine.ts patches it)`);
      expect(missing).toEqual([]);
    } finally {
      await tx.rollback();
    }
  });

  it('still route queries through performIO: a "char" column is read as a character, in and out of transactions', async () => {
    const a = await adapter();
    const tx = await a.startTransaction();
    try {
      for (const [kind, q] of [
        ['adapter', a],
        ['transaction', tx],
      ] as const) {
        const result = await q.queryRaw(CHAR_QUERY).catch((err: Error) => err);
        const got = result instanceof Error ? result.message : { types: result.columnTypes, rows: result.rows };
        expect([`${where()}, ${kind}: queryRaw no longer calls the patched performIO`, got]).toEqual([
          `${where()}, ${kind}: queryRaw no longer calls the patched performIO`,
          { types: [ColumnTypeEnum.Character, ColumnTypeEnum.Text], rows: [['r', 'pg_class']] },
        ]);
      }
    } finally {
      await tx.rollback();
    }
  });

  it('run a script as one query (semicolons in strings kept) and drop the shadow database on dispose', async () => {
    const a = await adapter();
    // adapter-pg's own executeScript splits on every ";", which breaks this script into invalid pieces.
    const script = `DO $$ BEGIN PERFORM 'a;b'; END $$; SELECT ';';`;
    expect(
      await a.executeScript(script).then(
        () => 'ran',
        (err: Error) => `${where()}: ${err.message}`,
      ),
    ).toBe('ran');

    const factory = new MigrationAdapterFactory(parseDatabaseUrl(url));
    factories.push(factory);
    const shadow = await factory.connectToShadowDb();
    const name = ((await shadow.queryRaw(query('SELECT current_database()::text'))).rows[0] as string[])[0]!;
    expect(name).toMatch(/^prisma_migrate_shadow_db_/);
    expect(name).not.toBe(new URL(url).pathname.slice(1));
    await shadow.dispose();
    const left = new pg.Pool({ connectionString: url, max: 1 });
    try {
      expect((await left.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount).toBe(0);
    } finally {
      await left.end();
    }
  });
});
