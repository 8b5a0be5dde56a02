import AjvModule, { type ValidateFunction } from 'ajv';
import Ajv2020Module from 'ajv/dist/2020.js';
import { compileRe2 } from './re2.js';

/**
 * `responseSchema` of http monitors and api steps: a JSON Schema (2020-12, the default, or draft-07, named by
 * `$schema`), at most 64 KB, `$ref`s local to it (`#...`). Compiled by Ajv once per monitor version (the worker caches
 * the validator by monitor id and version), never per check. Its `pattern`s run on RE2 (re2.ts), so that a tenant's
 * schema cannot stall a worker with a backtracking pattern; unknown keywords (OpenAPI's `example`, `xml`, ...) are
 * ignored, and so are `format`s (Ajv knows none without a plug-in: documented in docs/decisions.md).
 */

export const RESPONSE_SCHEMA_MAX_BYTES = 64 * 1024;
const DRAFT_07 = new Set(['http://json-schema.org/draft-07/schema#', 'http://json-schema.org/draft-07/schema']);
const DRAFT_2020 = new Set([
  'https://json-schema.org/draft/2020-12/schema',
  'https://json-schema.org/draft/2020-12/schema#',
]);

// Ajv's regExp option: RE2 instead of RegExp for `pattern` and `patternProperties`.
const re2Engine = Object.assign((pattern: string) => compileRe2(pattern), { code: 're2' });
const options = {
  strict: false,
  allErrors: false,
  validateFormats: false,
  logger: false as const,
  code: { regExp: re2Engine as never },
};
// Constructed on first use: most processes never compile a schema.
let draft07: InstanceType<typeof AjvModule.default> | undefined;
let draft2020: InstanceType<typeof Ajv2020Module.default> | undefined;

/** Why a schema cannot be used (its size, dialect, a remote `$ref`, what Ajv refuses), or null. */
export function responseSchemaProblem(schema: unknown): string | null {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return 'must be a JSON Schema object';
  const size = Buffer.byteLength(JSON.stringify(schema));
  if (size > RESPONSE_SCHEMA_MAX_BYTES) return `is ${size} bytes: at most ${RESPONSE_SCHEMA_MAX_BYTES}`;
  const dialect = (schema as Record<string, unknown>).$schema;
  if (dialect !== undefined && !DRAFT_07.has(String(dialect)) && !DRAFT_2020.has(String(dialect)))
    return '$schema must be JSON Schema 2020-12 (https://json-schema.org/draft/2020-12/schema) or draft-07';
  const remote = remoteRef(schema);
  if (remote !== null) return `only local $refs ("#/...") are allowed, not ${JSON.stringify(remote)}`;
  try {
    compileResponseSchema(schema);
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

/** The first `$ref` / `$dynamicRef` that does not point inside the schema, or null. */
function remoteRef(schema: object): string | null {
  const stack: unknown[] = [schema];
  while (stack.length) {
    const node = stack.pop();
    if (Array.isArray(node)) stack.push(...node);
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if ((key === '$ref' || key === '$dynamicRef') && (typeof value !== 'string' || !value.startsWith('#')))
          return String(value);
        if (value && typeof value === 'object') stack.push(value);
      }
    }
  }
  return null;
}

/** A validator for the schema (throws when Ajv cannot compile it). The schema is not kept in Ajv's registry. */
export function compileResponseSchema(schema: object): ValidateFunction {
  const { $schema, ...rest } = schema as Record<string, unknown>;
  const ajv = DRAFT_07.has(String($schema))
    ? (draft07 ??= new AjvModule.default(options))
    : (draft2020 ??= new Ajv2020Module.default(options));
  // `$id`s of different monitors would clash in one Ajv: compiled without its own, and removed from the registry at
  // once (the validator keeps what it needs), so memory follows the cache of validators, not every schema ever seen.
  const { $id: _id, ...body } = rest;
  try {
    return ajv.compile(body);
  } finally {
    ajv.removeSchema(body);
  }
}

/** `schema_mismatch: <instance path>: <message>` for a failed validation, or null when the document matched. */
export function schemaMismatch(validate: ValidateFunction, doc: unknown): string | null {
  if (validate(doc)) return null;
  const e = validate.errors?.[0];
  if (!e) return 'schema_mismatch: /: does not match';
  const extra =
    e.keyword === 'additionalProperties'
      ? ` (${JSON.stringify((e.params as { additionalProperty?: string }).additionalProperty)})`
      : e.keyword === 'enum'
        ? ` (${JSON.stringify((e.params as { allowedValues?: unknown }).allowedValues)})`
        : '';
  return `schema_mismatch: ${e.instancePath || '/'}: ${e.message ?? 'does not match'}${extra}`;
}

/**
 * Validators by a key the caller chooses (monitor id, version and step), compiled on first use: a new monitor version
 * is a new key, and the oldest entries go once the cache is full.
 */
export class ResponseSchemaCache {
  private readonly entries = new Map<string, ValidateFunction | Error>();
  constructor(private readonly max = 5000) {}

  /** The validator of `schema` under `key`, or the Error compiling it gave (cached too: it fails the same way). */
  get(key: string, schema: object): ValidateFunction | Error {
    let v = this.entries.get(key);
    if (v === undefined) {
      try {
        v = compileResponseSchema(schema);
      } catch (err) {
        v = err as Error;
      }
      if (this.entries.size >= this.max) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, v);
    }
    return v;
  }

  get size(): number {
    return this.entries.size;
  }
}
