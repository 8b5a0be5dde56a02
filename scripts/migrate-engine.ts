/**
 * Plumbing for scripts/migrate.ts: runs Prisma's WebAssembly schema engine against PostgreSQL
 * through @prisma/adapter-pg.
 *
 * Why this exists: `prisma migrate *` needs the native schema-engine binary, which is downloaded on
 * first use and cannot be fetched on machines without general network access. The WebAssembly
 * build ships as an npm package and speaks to the database through a JS driver adapter instead.
 * The on-disk layout (prisma/migrations/<timestamp>_<name>/migration.sql + migration_lock.toml)
 * and the `_prisma_migrations` bookkeeping are the engine's own, so `prisma migrate deploy` run
 * elsewhere sees exactly the same history.
 */
import { randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

import { PrismaPg } from '@prisma/adapter-pg';
import {
  bindMigrationAwareSqlAdapterFactory,
  ColumnTypeEnum,
  DriverAdapterError,
  type IsolationLevel,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
  type SqlQuery,
  type Transaction,
} from '@prisma/driver-adapter-utils';
import * as wasmRuntime from '@prisma/schema-engine-wasm/schema_engine_bg';
import type { MigrationList, SchemaEngine, SchemaFilter } from '@prisma/schema-engine-wasm/schema_engine_bg';
import pg from 'pg';

export type { SchemaEngine } from '@prisma/schema-engine-wasm/schema_engine_bg';

/** Prisma's own prefix, so a leftover shadow database is recognisable whoever created it. */
const SHADOW_DB_PREFIX = 'prisma_migrate_shadow_db_';

/** PostgreSQL's internal one-byte `"char"` type and `text`; see mapCharColumnsToText. */
const PG_CHAR_OID = 18;
const PG_TEXT_OID = 25;

/** No tables or enums are managed outside Prisma (prisma.config.ts has no `tables.external`). */
export const NO_FILTERS: SchemaFilter = { externalTables: [], externalEnums: [] };

// ---------------------------------------------------------------------------------------------
// Connection settings
// ---------------------------------------------------------------------------------------------

export interface PgConnection {
  /** Settings for pg.Client / pg.Pool, given field by field: never as a connection string. */
  config: pg.ClientConfig;
  /** Postgres schema named by `?schema=` (Prisma URL convention); `public` when absent. */
  schema: string | undefined;
}

/**
 * Splits DATABASE_URL into separate pg settings.
 *
 * Trap: pg lets `connectionString` override every other field, so PrismaPg built from
 * `{ connectionString }` ignores the `database` it sets for the shadow database and replays
 * migrations on the MAIN database. Passing discrete fields makes `{ ...config, database }` work.
 */
export function parseDatabaseUrl(databaseUrl: string): PgConnection {
  let url: URL;
  try {
    url = new URL(databaseUrl);
  } catch {
    throw new Error('DATABASE_URL is not a valid URL (expected postgresql://user:password@host:port/database)');
  }
  if (url.protocol !== 'postgresql:' && url.protocol !== 'postgres:') {
    throw new Error(`DATABASE_URL must use the postgresql:// scheme, got ${url.protocol}//`);
  }
  const params = url.searchParams;
  const user = decodeURIComponent(url.username);
  const database = decodeURIComponent(url.pathname.replace(/^\//, ''));
  const schema = params.get('schema') ?? undefined;
  return {
    config: {
      // `?host=/var/run/postgresql` selects a Unix socket directory, as in libpq.
      host: params.get('host') ?? (url.hostname.replace(/^\[(.*)\]$/, '$1') || undefined),
      port: url.port ? Number(url.port) : undefined,
      user: user || undefined,
      password: url.password ? decodeURIComponent(url.password) : undefined,
      // libpq defaults the database to the user name.
      database: database || user || undefined,
      ssl: sslFromMode(params.get('sslmode')),
      application_name: params.get('application_name') ?? 'statusvane-migrate',
      // Migration scripts use unqualified names, so they land in whatever search_path says; the
      // native engine points it at `?schema=` too.
      options: schema ? `-c search_path=${quoteIdent(schema).replace(/[\\ ]/g, '\\$&')}` : undefined,
    },
    schema,
  };
}

/** libpq semantics: `require` encrypts without verifying the certificate, `verify-*` verify it. */
function sslFromMode(mode: string | null): pg.ClientConfig['ssl'] {
  switch (mode) {
    case null:
    case 'disable':
      return undefined;
    case 'allow':
    case 'prefer':
    case 'require':
    case 'no-verify':
      return { rejectUnauthorized: false };
    case 'verify-ca':
    case 'verify-full':
      return { rejectUnauthorized: true };
    default:
      throw new Error(`DATABASE_URL has an unknown sslmode "${mode}"`);
  }
}

export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Runs `fn` with a single short-lived client on the main database (outside the engine). */
export async function withPgClient<T>(connection: PgConnection, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client(connection.config);
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

// ---------------------------------------------------------------------------------------------
// Driver adapter
// ---------------------------------------------------------------------------------------------

/**
 * adapter-pg's methods on its (private) PgQueryable class, shared by the adapter and its transactions, that
 * mapCharColumnsToText replaces: `performIO` is private, `queryRaw` public but relied on to call it.
 * test/migrate-hooks.test.ts pins them.
 */
export const PATCHED_QUERYABLE_METHODS = ['performIO', 'queryRaw'] as const;

/** The parts of adapter-pg's (private) PgQueryable that mapCharColumnsToText hooks into. */
interface PerformIOHost {
  performIO?: (query: SqlQuery) => Promise<pg.QueryResult>;
  queryRaw?: (query: SqlQuery) => Promise<{ columnTypes: number[]; rows: unknown[][] }>;
}

/** The row arrays of results that had `"char"` columns, and those columns' positions. */
const charColumnsOf = new WeakMap<object, number[]>();

/**
 * Trap: the schema describer reads catalog columns of PostgreSQL's internal `"char"` type (OID 18,
 * e.g. pg_class.relkind), and adapter-pg 7.10 refuses that type ("Unsupported column type") before
 * returning any row. Its values are plain one-character strings, so re-label them as `text`.
 * This hooks the private method that both the adapter and its transactions use to run queries.
 */
function mapCharColumnsToText(queryable: object): void {
  const host = queryable as PerformIOHost;
  const missing = PATCHED_QUERYABLE_METHODS.filter((m) => typeof host[m] !== 'function');
  if (missing.length > 0) {
    throw new Error(`@prisma/adapter-pg internals changed (no ${missing.join(', ')}): revisit mapCharColumnsToText`);
  }
  const performIO = host.performIO!;
  host.performIO = async (query) => {
    const result = await performIO.call(queryable, query);
    const charColumns: number[] = [];
    result.fields.forEach((field, i) => {
      if (field.dataTypeID === PG_CHAR_OID) {
        field.dataTypeID = PG_TEXT_OID;
        charColumns.push(i);
      }
    });
    if (charColumns.length > 0) charColumnsOf.set(result.rows, charColumns);
    return result;
  };
  // Second trap: the describer reads some of those columns as a character, not a string (pg_constraint.contype in
  // its CHECK and EXCLUDE constraint query): a text value there panics the WebAssembly engine ("unreachable") as soon
  // as one CHECK constraint exists. Report them as the driver adapters' Character type, which it reads as one.
  const queryRaw = host.queryRaw!;
  host.queryRaw = async (query) => {
    const result = await queryRaw.call(queryable, query);
    for (const i of charColumnsOf.get(result.rows) ?? []) result.columnTypes[i] = ColumnTypeEnum.Character;
    return result;
  };
}

/** Turns a pg error into the shape the engine reports (and records in `_prisma_migrations.logs`). */
function toDriverAdapterError(error: unknown): unknown {
  if (error instanceof pg.DatabaseError) {
    return new DriverAdapterError({
      kind: 'postgres',
      code: error.code ?? 'N/A',
      severity: error.severity ?? 'N/A',
      message: error.message,
      detail: error.detail,
      column: error.column,
      hint: error.hint,
    });
  }
  return error;
}

type PrismaPgAdapter = Awaited<ReturnType<PrismaPg['connect']>>;

/**
 * A SqlMigrationAwareDriverAdapterFactory over PrismaPg that fixes what adapter-pg 7.10 gets wrong
 * for migrations, and remembers every pool and shadow database it opens so that `close()` can
 * release them even when the engine fails half-way.
 */
export class MigrationAdapterFactory implements SqlMigrationAwareDriverAdapterFactory {
  readonly provider = 'postgres';
  readonly adapterName = '@prisma/adapter-pg';

  readonly #connection: PgConnection;
  readonly #openAdapters = new Set<SqlDriverAdapter>();
  readonly #shadowDatabases = new Set<string>();
  /** Set when the adapter's internals are not what mapCharColumnsToText patches (after a version bump). */
  hookError: Error | undefined;

  constructor(connection: PgConnection) {
    this.#connection = connection;
  }

  async connect(): Promise<SqlDriverAdapter> {
    return this.#openAdapter(this.#connection.config);
  }

  /**
   * Trap: adapter-pg's own version builds the shadow pool from the connection string (so it lands
   * on the main database), and on dispose drops the database while its own pool still holds
   * connections, which fails and leaks the database (and the admin pool). Here the pool is closed
   * first and the database is then dropped with FORCE from a separate connection.
   */
  async connectToShadowDb(): Promise<SqlDriverAdapter> {
    const database = `${SHADOW_DB_PREFIX}${randomUUID()}`;
    await withPgClient(this.#connection, (client) => client.query(`CREATE DATABASE ${quoteIdent(database)}`));
    this.#shadowDatabases.add(database);
    try {
      const config = { ...this.#connection.config, database };
      return await this.#openAdapter(config, () => this.#dropShadowDatabase(database));
    } catch (error) {
      await this.#dropShadowDatabase(database);
      throw error;
    }
  }

  /** Disposes whatever the engine left open and drops any shadow database still around. */
  async close(): Promise<void> {
    const failures: unknown[] = [];
    for (const adapter of [...this.#openAdapters]) {
      await adapter.dispose().catch((error: unknown) => failures.push(error));
    }
    for (const database of [...this.#shadowDatabases]) {
      await this.#dropShadowDatabase(database).catch((error: unknown) => failures.push(error));
    }
    if (failures.length > 0) throw new AggregateError(failures, 'Failed to release migration connections');
  }

  async #openAdapter(config: pg.ClientConfig, afterDispose?: () => Promise<void>): Promise<SqlDriverAdapter> {
    const adapter: PrismaPgAdapter = await new PrismaPg(config, { schema: this.#connection.schema }).connect();
    try {
      this.#patch(adapter);
    } catch (error) {
      await adapter.dispose();
      throw error;
    }

    const startTransaction = adapter.startTransaction.bind(adapter);
    adapter.startTransaction = async (isolationLevel?: IsolationLevel): Promise<Transaction> => {
      const transaction = await startTransaction(isolationLevel);
      try {
        this.#patch(transaction);
      } catch (error) {
        await transaction.rollback().catch(() => undefined);
        throw error;
      }
      return transaction;
    };

    // adapter-pg splits scripts on every ";" (breaking semicolons inside strings, comments and
    // $$-bodies) and runs the pieces on whichever pooled connection is free. Send the script as
    // one simple-protocol query instead, like the native engine: one connection, and PostgreSQL
    // runs a multi-statement query atomically.
    const pool = adapter.underlyingDriver();
    adapter.executeScript = async (script: string): Promise<void> => {
      try {
        await pool.query(script);
      } catch (error) {
        throw toDriverAdapterError(error);
      }
    };

    const dispose = adapter.dispose.bind(adapter);
    let disposing: Promise<void> | undefined;
    adapter.dispose = () =>
      (disposing ??= (async () => {
        this.#openAdapters.delete(adapter);
        try {
          await dispose();
        } finally {
          await afterDispose?.();
        }
      })());

    this.#openAdapters.add(adapter);
    return adapter;
  }

  /** mapCharColumnsToText, keeping its failure: the engine would report only "External error id#0". */
  #patch(queryable: object): void {
    try {
      mapCharColumnsToText(queryable);
    } catch (error) {
      this.hookError = error as Error;
      throw error;
    }
  }

  async #dropShadowDatabase(database: string): Promise<void> {
    // WITH (FORCE) (PostgreSQL 13+) also ends sessions a failed engine call may have left behind.
    await withPgClient(this.#connection, (client) =>
      client.query(`DROP DATABASE IF EXISTS ${quoteIdent(database)} WITH (FORCE)`),
    );
    this.#shadowDatabases.delete(database);
  }
}

// ---------------------------------------------------------------------------------------------
// WebAssembly engine
// ---------------------------------------------------------------------------------------------

/** What we call on the instantiated module; the wasm-bindgen glue owns everything else. */
interface SchemaEngineWasmExports {
  __wbindgen_start(): void;
}

type WasmImports = Record<string, Record<string, unknown>>;

/**
 * The slice of the WebAssembly global used here. The repo compiles with `lib: ["ES2023"]` and no
 * DOM, and @types/node does not declare WebAssembly, so it is typed locally.
 */
interface WebAssemblyApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: WasmImports) => { exports: unknown };
}
const { WebAssembly: wasmApi } = globalThis as unknown as { WebAssembly: WebAssemblyApi };

interface PanicRegistry {
  message: string;
  get(): string;
  set_message(message: string): void;
}

/** The glue reports Rust panics to this global (the Prisma CLI defines it the same way). */
function panicRegistry(): PanicRegistry {
  const scope = globalThis as { PRISMA_WASM_PANIC_REGISTRY?: PanicRegistry };
  scope.PRISMA_WASM_PANIC_REGISTRY ??= {
    message: '',
    get() {
      return this.message;
    },
    set_message(message: string) {
      this.message = `RuntimeError: ${message}`;
    },
  };
  return scope.PRISMA_WASM_PANIC_REGISTRY;
}

type TimerImport = (callback: () => void, milliseconds: number) => NodeJS.Timeout;

/** The module name the engine's WebAssembly imports are resolved from: the wasm-bindgen glue. */
export const WASM_GLUE_MODULE = './schema_engine_bg.js';
/** wasm-bindgen names the glue's setTimeout import `__wbg_setTimeout_<hash>`; the hash changes with each build. */
export const TIMER_IMPORT_PREFIX = '__wbg_setTimeout_';

/**
 * The engine races its advisory-lock query against a 10 s timer that it never clears, which kept
 * every `deploy` process alive for 10 s after finishing. Its timers only bound waits on database
 * I/O, whose open sockets keep the process alive anyway, so they need not hold the event loop.
 * (The import's name carries a build hash, hence the prefix match.)
 */
function withUnrefTimers(glue: typeof wasmRuntime): Record<string, unknown> {
  const imports: Record<string, unknown> = { ...glue };
  for (const [name, value] of Object.entries(imports)) {
    if (name.startsWith(TIMER_IMPORT_PREFIX) && typeof value === 'function') {
      const setTimer = value as TimerImport;
      imports[name] = ((callback, milliseconds) => setTimer(callback, milliseconds).unref()) satisfies TimerImport;
    }
  }
  return imports;
}

let runtimeReady: Promise<typeof wasmRuntime> | undefined;

/** The engine's WebAssembly module, compiled from the file beside its glue. */
async function compileSchemaEngine(): Promise<object> {
  const require = createRequire(import.meta.url);
  const gluePath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
  return new wasmApi.Module(await readFile(path.join(path.dirname(gluePath), 'schema_engine_bg.wasm')));
}

/**
 * What loadSchemaEngineRuntime and withUnrefTimers assume of the wasm-bindgen build, as readable problems (none when
 * it holds): every import comes from WASM_GLUE_MODULE and is a function the glue exports, one of them is the
 * setTimeout import, the glue has `__wbg_set_wasm` and `SchemaEngine`, and the module exports `__wbindgen_start`.
 * For test/migrate-hooks.test.ts: an upgrade of @prisma/schema-engine-wasm that breaks one of them fails there.
 */
export async function wasmGlueProblems(): Promise<string[]> {
  const module = await compileSchemaEngine();
  const { imports, exports } = wasmApi.Module as unknown as {
    imports(m: object): Array<{ module: string; name: string; kind: string }>;
    exports(m: object): Array<{ name: string; kind: string }>;
  };
  const glue = wasmRuntime as unknown as Record<string, unknown>;
  const problems: string[] = [];
  for (const imp of imports(module)) {
    if (imp.module !== WASM_GLUE_MODULE)
      problems.push(`import ${imp.name} comes from "${imp.module}", not "${WASM_GLUE_MODULE}"`);
    else if (typeof glue[imp.name] !== 'function') problems.push(`import ${imp.name} is not a function of the glue`);
  }
  if (!imports(module).some((i) => i.name.startsWith(TIMER_IMPORT_PREFIX))) {
    problems.push(`no ${TIMER_IMPORT_PREFIX}* import: withUnrefTimers no longer unrefs the engine's timers`);
  }
  for (const name of ['__wbg_set_wasm', 'SchemaEngine']) {
    if (typeof glue[name] !== 'function') problems.push(`the glue has no ${name}`);
  }
  if (!exports(module).some((e) => e.name === '__wbindgen_start'))
    problems.push('the module exports no __wbindgen_start');
  return problems;
}

/**
 * Instantiates the engine once per process. The package's default entry imports the .wasm file as
 * an ES module, which Node cannot do, so wire the wasm-bindgen glue to the module by hand.
 */
function loadSchemaEngineRuntime(): Promise<typeof wasmRuntime> {
  runtimeReady ??= (async () => {
    panicRegistry();
    const module = await compileSchemaEngine();
    const instance = new wasmApi.Instance(module, { [WASM_GLUE_MODULE]: withUnrefTimers(wasmRuntime) });
    wasmRuntime.__wbg_set_wasm(instance.exports);
    (instance.exports as SchemaEngineWasmExports).__wbindgen_start();
    return wasmRuntime;
  })();
  return runtimeReady;
}

/** Raised for engine failures that do not arrive as a JS Error (Rust panics, odd rejections). */
export class MigrateError extends Error {
  override name = 'MigrateError';
}

/**
 * Engine failures already arrive as Errors carrying the engine's message and span trace. A Rust
 * panic instead surfaces as an opaque `RuntimeError: unreachable`; its text is in the registry.
 */
function toMigrateError(error: unknown): Error {
  // The Prisma client, when loaded in the same process after the engine (the bench), replaces the global registry
  // with its own, which has no get(): then the engine's own error is all there is.
  const registry = panicRegistry() as Partial<PanicRegistry>;
  const panic = typeof registry.get === 'function' ? registry.get() : '';
  if (panic) return new MigrateError(`Schema engine panicked: ${panic}`, { cause: error });
  return error instanceof Error ? error : new MigrateError(String(error), { cause: error });
}

export interface EngineOptions {
  databaseUrl: string;
  /** The Prisma schema the engine loads (the diff target for `schemaDatamodel`). */
  schemaPath: string;
  /** Engine log lines go to stderr when set (MIGRATE_DEBUG=1 on the CLI). */
  debug?: boolean;
}

/**
 * Runs `fn` with a connected engine, then frees it and releases every connection and shadow
 * database, whatever happened. Pools left open would otherwise keep the process alive.
 */
export async function withSchemaEngine<T>(
  options: EngineOptions,
  fn: (engine: SchemaEngine) => Promise<T>,
): Promise<T> {
  const runtime = await loadSchemaEngineRuntime();
  panicRegistry().message = ''; // a panic in an earlier session must not be blamed for this one's errors
  const schemaPath = path.resolve(options.schemaPath);
  const schema = await readFile(schemaPath, 'utf8');
  const factory = new MigrationAdapterFactory(parseDatabaseUrl(options.databaseUrl));
  const log = (line: unknown): void => {
    if (options.debug) process.stderr.write(`[schema-engine] ${String(line)}\n`);
  };

  let engine: SchemaEngine | undefined;
  let failed = false;
  try {
    engine = await runtime.SchemaEngine.new(
      { datamodels: [[schemaPath, schema]] },
      log,
      bindMigrationAwareSqlAdapterFactory(factory),
    );
    return await fn(engine);
  } catch (error) {
    failed = true;
    throw factory.hookError ?? toMigrateError(error);
  } finally {
    try {
      engine?.free();
    } catch {
      // After a Rust panic the instance refuses to be freed; the panic is the error worth reporting.
    }
    // A cleanup failure must not hide the error that caused it.
    await factory.close().catch((error: unknown) => {
      if (!failed) throw error;
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Migrations folder
// ---------------------------------------------------------------------------------------------

export const LOCKFILE_NAME = 'migration_lock.toml';
export const MIGRATION_FILE_NAME = 'migration.sql';

/**
 * Reads prisma/migrations the way the Prisma CLI does before handing it to the engine: every
 * sub-directory is a migration, sorted by name (the timestamp prefix orders them); an unreadable
 * migration.sql is passed on as an error for the engine to report.
 */
export async function readMigrationsList(migrationsDir: string): Promise<MigrationList> {
  const baseDir = path.resolve(migrationsDir);
  const lockfileContent = await readFile(path.join(baseDir, LOCKFILE_NAME), 'utf8').catch(() => null);
  const entries = await readdir(baseDir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });

  const directories = entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  directories.sort((a, b) => a.localeCompare(b));

  return {
    baseDir,
    lockfile: { path: LOCKFILE_NAME, content: lockfileContent },
    shadowDbInitScript: '',
    migrationDirectories: await Promise.all(
      directories.map(async (name) => ({
        path: name,
        migrationFile: {
          path: MIGRATION_FILE_NAME,
          content: await readFile(path.join(baseDir, name, MIGRATION_FILE_NAME), 'utf8').then(
            (value) => ({ tag: 'ok' as const, value }),
            (error: Error) => ({ tag: 'error' as const, value: error.message }),
          ),
        },
      })),
    ),
  };
}
