import express, { type Request, type RequestHandler } from 'express';
import { parse as parseYaml } from 'yaml';
import { AppError, formatPath, ValidationError, type Issue } from '@statusvane/shared';

export const BODY_LIMIT = '256kb';
/** Operations that take a whole document (an OpenAPI import): `large` in their route's body. */
export const LARGE_BODY_LIMIT = '5mb';
/** res.locals key: the matched operation reads its (large) body itself, not the global jsonBody. */
export const LARGE_BODY = 'largeBody';
/** Far above any valid body (two levels), far below what a recursive walk of the body could not handle. */
export const MAX_JSON_DEPTH = 32;

const utf8 = new TextDecoder('utf-8', { fatal: true });

class BodyEncodingError extends Error {
  constructor(
    message: string,
    readonly type: 'entity.verify.failed' | 'charset.unsupported',
  ) {
    super(message);
  }
}

/**
 * The raw bytes, before JSON.parse: UTF-8 only (the decisions' `charset=utf-8`; body-parser would also decode
 * UTF-16 and UTF-32), and valid UTF-8: a lenient decoder turns a bad byte into U+FFFD, so the client's data would be
 * stored altered without a word.
 */
export function verifyUtf8(_req: unknown, _res: unknown, buf: Buffer, encoding: string | null): void {
  if (encoding !== null && encoding.toLowerCase() !== 'utf-8')
    throw new BodyEncodingError(`unsupported charset ${encoding}`, 'charset.unsupported');
  try {
    utf8.decode(buf);
  } catch {
    throw new BodyEncodingError('the body is not valid UTF-8', 'entity.verify.failed');
  }
}

const jsonParser = (limit: string) =>
  express.json({
    limit,
    // Any JSON value parses; what is not an object is refused below, by name (strict mode called `null` invalid JSON).
    strict: false,
    type: ['application/json', 'application/*+json'],
    verify: verifyUtf8,
  });
const parseJson = jsonParser(BODY_LIMIT);
const parseLargeJson = jsonParser(LARGE_BODY_LIMIT);

/** The media types a YAML body is sent with (`application/yaml` is the registered one, RFC 9512). */
export const YAML_TYPES = ['application/yaml', 'application/x-yaml', 'text/yaml'];
const JSON_TYPES = ['application/json', 'application/*+json'];

const readYamlText = express.text({ limit: BODY_LIMIT, type: YAML_TYPES, verify: verifyUtf8 });

/**
 * A YAML body, read as the JSON it stands for: YAML 1.2's core schema (no dates, no custom types), duplicate keys
 * refused, and at most 100 aliases (a "billion laughs" document cannot expand). Only routes that declare `yaml`
 * read it (jsonBodyRule); the others answer the usual "send JSON" without reading it.
 */
function parseYamlBody(req: Request): unknown {
  if (typeof req.body !== 'string' || req.body.trim() === '') return undefined;
  try {
    return parseYaml(req.body, { schema: 'core', uniqueKeys: true, maxAliasCount: 100, prettyErrors: false });
  } catch (err) {
    const message = (err as Error).message.split('\n')[0] ?? 'invalid YAML';
    throw new ValidationError('The request body is not valid YAML', [{ path: '(body)', message }]);
  }
}

/** No lone UTF-16 surrogate (`"\\ud800"` is valid JSON, but no UTF-8 text can hold it: PostgreSQL refuses it). */
const wellFormed = (s: string): boolean => (s as string & { isWellFormed(): boolean }).isWellFormed();
const LONE_SURROGATE = 'must be well-formed Unicode (no lone surrogate such as \\ud800)';

/**
 * What valid JSON may carry but nothing downstream can take: nesting deeper than MAX_JSON_DEPTH (recursive code
 * such as the safe-retry fingerprint overflowed the stack at 10,000 levels: a 500), and NUL characters or lone
 * surrogates (`\\ud800`) in keys or strings (PostgreSQL text and jsonb refuse them: a 500). Walked with an explicit
 * stack, never recursively.
 */
export function unstorableJson(body: unknown): Issue | null {
  const stack: Array<{ value: unknown; path: PropertyKey[] }> = [{ value: body, path: [] }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\u0000'))
        return { path: formatPath(path) || '(body)', message: 'must not contain NUL (\\u0000) characters' };
      if (!wellFormed(value)) return { path: formatPath(path) || '(body)', message: LONE_SURROGATE };
    } else if (value !== null && typeof value === 'object') {
      if (path.length >= MAX_JSON_DEPTH)
        return { path: '(body)', message: `is nested more than ${MAX_JSON_DEPTH} levels deep` };
      for (const [key, child] of Object.entries(value)) {
        if (key.includes('\u0000'))
          return { path: formatPath(path) || '(body)', message: 'keys must not contain NUL (\\u0000) characters' };
        if (!wellFormed(key)) return { path: formatPath(path) || '(body)', message: `keys ${LONE_SURROGATE}` };
        stack.push({ value: child, path: [...path, Array.isArray(value) ? Number(key) : key] });
      }
    }
  }
  return null;
}

/** What a parsed body is when it is not an object, as a client would name it. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/**
 * Every body the API takes is a JSON object. `null`, `"x"`, `42` or `[...]` are valid JSON but not that: refused
 * with what the body is (undefined: no body was sent).
 */
export function notAnObject(body: unknown): Issue | null {
  if (body === undefined || (typeof body === 'object' && body !== null && !Array.isArray(body))) return null;
  return { path: '(body)', message: `must be a JSON object, not ${kindOf(body)}` };
}

/** The body read: an object (or none), and storable. */
function checkParsed(req: Request, next: (err?: unknown) => void): void {
  const shape = notAnObject(req.body);
  if (shape) return next(new ValidationError('The request body must be a JSON object', [shape]));
  const issue = unstorableJson(req.body);
  next(issue ? new ValidationError(`Invalid request body: ${issue.path}`, [issue]) : undefined);
}

/** A body was sent: chunked, or a Content-Length other than 0 (an empty body counts as none). */
const bodySent = (req: Request) =>
  req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0';

const isYaml = (req: Request) => typeof req.is(YAML_TYPES) === 'string';

/**
 * JSON bodies, 256 KiB at most, and an object. Malformed, non-object or unstorable JSON reaches the error handler as
 * invalid_request. A YAML body is left unread here: only an operation that takes YAML reads it (jsonBodyRule), the
 * others refuse it unread.
 */
export const jsonBody: RequestHandler = (req, res, next) => {
  // No body sent (most requests: GETs): nothing to read. jsonBodyRule still requires one where an operation takes it.
  if (!bodySent(req)) return next();
  if (isYaml(req) || res.locals[LARGE_BODY] === true) return next();
  parseJson(req, res, (err?: unknown) => (err ? next(err) : checkParsed(req, next)));
};

/** A YAML body (an operation that takes one), read as the JSON it stands for and judged as a JSON body is. */
const yamlBody: RequestHandler = (req, res, next) => {
  readYamlText(req, res, (err?: unknown) => {
    if (err) return next(err);
    try {
      req.body = parseYamlBody(req);
    } catch (e) {
      return next(e);
    }
    checkParsed(req, next);
  });
};

/**
 * One rule for bodies on every operation: a body that is sent is JSON (or, where the operation takes it, YAML), and
 * an operation that takes one requires it. A body of another type (text/plain, a form) is refused rather than ignored
 * or read as `{}`; an empty body (Content-Length: 0) counts as none.
 */
export function jsonBodyRule(takesBody: boolean, acceptsYaml = false, large = false): RequestHandler {
  const types = acceptsYaml ? [...JSON_TYPES, ...YAML_TYPES] : JSON_TYPES;
  return (req, res, next) => {
    if ((takesBody || bodySent(req)) && !req.is(types)) {
      throw new AppError(
        'invalid_request',
        acceptsYaml
          ? 'Send a JSON body (Content-Type: application/json) or YAML (Content-Type: application/yaml)'
          : 'Send a JSON body with Content-Type: application/json',
      );
    }
    if (acceptsYaml && isYaml(req)) return yamlBody(req, res, next);
    if (large && !isYaml(req))
      return parseLargeJson(req, res, (err?: unknown) => (err ? next(err) : checkParsed(req, next)));
    next();
  };
}
