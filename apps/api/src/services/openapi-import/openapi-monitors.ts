/**
 * OpenAPI import, the pure part (spec section 9): an OpenAPI 3.0 or 3.1 document -> the http monitors of a config
 * document, one per GET operation that needs no parameter (or whose required parameters all have examples). No I/O:
 * import-openapi.ts reads the document and plans or applies what this answers as section 6 does.
 *
 * - `ref` = `openapi.<name>.<operationId in kebab-case>` (an operation without an id: `get-<path in kebab-case>`);
 *   `metadata.openapi` = the operationId (or `GET /path`).
 * - `expectedStatusCodes`: the documented 2xx codes (`2XX` or none: empty, the probe's "any 2xx or 3xx").
 * - `responseSchema`: the JSON schema of the first documented 2xx JSON response, `$ref`s to
 *   `#/components/schemas/...` resolved by copying what they reach into `$defs` (recursive schemas stay references);
 *   3.0's `nullable` and boolean `exclusiveMinimum`/`exclusiveMaximum` rewritten as JSON Schema says them. A schema
 *   that cannot be used (another `$ref`, too large, refused by the validator) is left out: the monitor still checks
 *   the status.
 */
import { responseSchemaProblem } from '@statusvane/shared';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface ImportOptions {
  name: string;
  baseUrl: string;
  include?: readonly string[] | undefined;
  headers?: Record<string, string> | undefined;
  intervalSeconds?: number | undefined;
  regions?: readonly string[] | undefined;
}

/** One operation considered: imported as a monitor, or why not. */
export interface ImportedOperation {
  /** `operationId`, or `GET /path`. */
  key: string;
  path: string;
  monitor: Json | null;
  skipped: string | null;
}

/** What a document gives: its OpenAPI version and every GET operation, imported or skipped with why. */
export interface ImportResult {
  version: '3.0' | '3.1';
  operations: ImportedOperation[];
}

export class OpenApiDocumentError extends Error {}

/** `getPetById` -> `get-pet-by-id`; `/pets/{id}` -> `pets-id`. */
export function kebab(text: string): string {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1-$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** The value at a local JSON pointer (`#/components/parameters/Limit`), or undefined. */
function atPointer(doc: Json, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(node) && !Array.isArray(node)) return undefined;
    node = (node as Json)[key];
  }
  return node;
}

/** A parameter, response or media object that may be a `$ref` (followed up to 10 times). */
function deref(doc: Json, value: unknown): Json | null {
  let node = value;
  for (let i = 0; i < 10 && isObject(node) && typeof node.$ref === 'string'; i++) node = atPointer(doc, node.$ref);
  return isObject(node) && node.$ref === undefined ? node : null;
}

/** A parameter's example: `example`, the first of `examples`, or its schema's `example` / `default`. */
function exampleOf(doc: Json, p: Json): unknown {
  if (p.example !== undefined) return p.example;
  if (isObject(p.examples))
    for (const e of Object.values(p.examples)) {
      const ex = deref(doc, e);
      if (ex && ex.value !== undefined) return ex.value;
    }
  const schema = deref(doc, p.schema);
  if (schema?.example !== undefined) return schema.example;
  if (Array.isArray(schema?.examples) && schema.examples.length) return schema.examples[0];
  return undefined;
}

const SCHEMA_PREFIX = '#/components/schemas/';

// Keywords whose value is a schema, a list of schemas, or a map of names to schemas; every other keyword is copied.
const SCHEMA_KEYWORDS = new Set([
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  'additionalItems',
  'allOf',
  'anyOf',
  'oneOf',
  'prefixItems',
]);
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

/** A schema of the document as JSON Schema: 3.0 keywords rewritten, component refs pointed at `$defs`. */
function convertSchema(node: unknown, v30: boolean, reached: Set<string>, problems: string[]): unknown {
  if (Array.isArray(node)) return node.map((n) => convertSchema(n, v30, reached, problems));
  if (!isObject(node)) return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string') {
      if (value.startsWith(SCHEMA_PREFIX)) {
        const name = value.slice(SCHEMA_PREFIX.length).split('/')[0]!;
        reached.add(decodeURIComponent(name).replace(/~1/g, '/').replace(/~0/g, '~'));
        out.$ref = `#/$defs/${value.slice(SCHEMA_PREFIX.length)}`;
      } else problems.push(`a $ref outside #/components/schemas (${value})`);
    } else if (SCHEMA_KEYWORDS.has(key)) out[key] = convertSchema(value, v30, reached, problems);
    else if (SCHEMA_MAPS.has(key) && isObject(value))
      out[key] = Object.fromEntries(
        Object.entries(value).map(([name, schema]) => [name, convertSchema(schema, v30, reached, problems)]),
      );
    else out[key] = value;
  }
  if (v30) {
    // Both, where both are given: an enum of a nullable type admits null only when it lists it.
    if (out.nullable === true) {
      if (typeof out.type === 'string') out.type = [out.type, 'null'];
      if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...(out.enum as unknown[]), null];
    }
    delete out.nullable;
    for (const [exclusive, bound] of [
      ['exclusiveMinimum', 'minimum'],
      ['exclusiveMaximum', 'maximum'],
    ] as const) {
      if (out[exclusive] === true && typeof out[bound] === 'number') {
        out[exclusive] = out[bound];
        delete out[bound];
      } else if (typeof out[exclusive] === 'boolean') delete out[exclusive];
    }
  }
  return out;
}

/** The response schema of an operation's JSON 2xx response, as a self-contained JSON Schema, or null. */
function responseSchemaOf(doc: Json, v30: boolean, response: Json): Json | null {
  const content = isObject(response.content) ? response.content : {};
  const mediaType = Object.keys(content).find((t) => /^application\/(.+\+)?json(;|$)/i.test(t));
  const media = mediaType ? deref(doc, content[mediaType]) : null;
  if (!media || media.schema === undefined) return null;
  const problems: string[] = [];
  const reached = new Set<string>();
  const root = convertSchema(media.schema, v30, reached, problems);
  if (!isObject(root)) return null;
  const components = (
    isObject(doc.components) && isObject(doc.components.schemas) ? doc.components.schemas : {}
  ) as Json;
  const defs: Json = {};
  // Every component the root reaches, and every one those reach, once each.
  const queue = [...reached];
  for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
    if (name in defs) continue;
    if (!(name in components)) {
      problems.push(`no component schema ${name}`);
      break;
    }
    const found = new Set<string>();
    defs[name] = convertSchema(components[name], v30, found, problems);
    for (const n of found) if (!(n in defs)) queue.push(n);
  }
  if (problems.length) return null;
  const schema: Json = { ...root, ...(Object.keys(defs).length ? { $defs: defs } : {}) };
  // OpenAPI 3.1 schemas are JSON Schema 2020-12 (the default), 3.0's are a subset of it once rewritten.
  delete schema.$schema;
  delete schema.$id;
  return responseSchemaProblem(schema) === null ? schema : null;
}

/** The monitor of one GET operation, or why it is not imported. */
function operationMonitor(
  doc: Json,
  v30: boolean,
  path: string,
  pathItem: Json,
  op: Json,
  options: ImportOptions,
): { monitor: Json } | { skipped: string } {
  const operationId = typeof op.operationId === 'string' && op.operationId ? op.operationId : null;
  const key = operationId ?? `GET ${path}`;
  const params = new Map<string, Json>();
  for (const raw of [
    ...(Array.isArray(pathItem.parameters) ? pathItem.parameters : []),
    ...(Array.isArray(op.parameters) ? op.parameters : []),
  ]) {
    const p = deref(doc, raw);
    if (p && typeof p.name === 'string' && typeof p.in === 'string') params.set(`${p.in}:${p.name}`, p);
  }
  let url = path;
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  for (const p of params.values()) {
    const required = p.in === 'path' || p.required === true;
    const example = exampleOf(doc, p);
    if (example === undefined) {
      if (required)
        return { skipped: `parameter ${p.name as string} (${p.in as string}) is required and has no example` };
      continue;
    }
    if (!required) continue;
    const text = typeof example === 'string' ? example : JSON.stringify(example);
    if (p.in === 'path') url = url.split(`{${p.name as string}}`).join(encodeURIComponent(text));
    else if (p.in === 'query') query.append(p.name as string, text);
    else if (p.in === 'header') headers[p.name as string] = text;
    else return { skipped: `parameter ${p.name as string} is in ${p.in as string}` };
  }
  if (/\{[^}]*\}/.test(url)) return { skipped: 'a path parameter is not declared' };
  const responses = isObject(op.responses) ? op.responses : {};
  const codes = Object.keys(responses)
    .filter((c) => /^2\d\d$/.test(c))
    .map(Number);
  const first = Object.keys(responses)
    .filter((c) => /^2(\d\d|XX)$/i.test(c))
    .sort()[0];
  const response = first ? deref(doc, responses[first]) : null;
  const schema = response ? responseSchemaOf(doc, v30, response) : null;
  const qs = query.toString();
  const refTail = operationId ? kebab(operationId) : `get-${kebab(path) || 'root'}`;
  const summary = typeof op.summary === 'string' && op.summary.trim() ? op.summary.trim() : key;
  return {
    monitor: {
      ref: `openapi.${options.name}.${refTail}`.slice(0, 100),
      type: 'http',
      name: `${options.name}: ${summary}`.slice(0, 120).trim(),
      target: `${options.baseUrl.replace(/\/+$/, '')}${url}${qs ? `?${qs}` : ''}`,
      method: 'GET',
      ...(codes.length ? { expectedStatusCodes: codes } : {}),
      ...(schema ? { responseSchema: schema } : {}),
      ...(Object.keys(headers).length || options.headers ? { headers: { ...headers, ...options.headers } } : {}),
      ...(options.intervalSeconds !== undefined ? { intervalSeconds: options.intervalSeconds } : {}),
      ...(options.regions !== undefined ? { regions: [...options.regions] } : {}),
      metadata: { openapi: key },
    },
  };
}

/**
 * The GET operations of `doc`, each a monitor body of a config document or skipped with its reason; `include`
 * (operationIds or `GET /path`) keeps only those it names. Throws OpenApiDocumentError when `doc` is no OpenAPI 3.0
 * or 3.1 document.
 */
export function openApiMonitors(doc: unknown, options: ImportOptions): ImportResult {
  if (!isObject(doc)) throw new OpenApiDocumentError('is not an OpenAPI document (an object)');
  const version = typeof doc.openapi === 'string' ? /^3\.([01])\.\d+/.exec(doc.openapi)?.[1] : undefined;
  if (version === undefined)
    throw new OpenApiDocumentError(
      typeof doc.swagger === 'string'
        ? 'is Swagger 2.0: convert it to OpenAPI 3 first'
        : '`openapi` must be 3.0.x or 3.1.x',
    );
  const paths = isObject(doc.paths) ? doc.paths : {};
  const include = options.include ? new Set(options.include) : null;
  const operations: ImportedOperation[] = [];
  for (const [path, rawItem] of Object.entries(paths)) {
    const item = deref(doc, rawItem);
    const op = item && deref(doc, item.get);
    if (!item || !op) continue;
    const key = typeof op.operationId === 'string' && op.operationId ? op.operationId : `GET ${path}`;
    if (include && !include.has(key) && !include.has(`GET ${path}`)) continue;
    const made = operationMonitor(doc, version === '0', path, item, op, options);
    operations.push({
      key,
      path,
      monitor: 'monitor' in made ? made.monitor : null,
      skipped: 'skipped' in made ? made.skipped : null,
    });
  }
  return { version: version === '0' ? '3.0' : '3.1', operations };
}
