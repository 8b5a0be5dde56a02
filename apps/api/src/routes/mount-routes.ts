import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import { AppError, parseOrThrow } from '@statusvane/shared';
import { z } from 'zod';
import type { ApiDeps } from '../deps.js';
import { ctxOf, userCtxOf } from '../middleware/auth.js';
import {
  answerNotStored,
  idempotency,
  releaseIdempotencyClaim,
  storeAnswerInTransaction,
  storedAnswer,
} from '../middleware/idempotency.js';
import { etagOf, ifNoneMatchNames, parseIfMatch } from '../middleware/if-match.js';
import { jsonBodyRule, LARGE_BODY } from '../middleware/json-body.js';
import { assertWriteScope } from '../services/auth/bearer-error.js';
import { assertCan } from '../services/auth/permissions.js';
import { ROUTE_LABEL } from '../middleware/request-log.js';
import type { ServiceContext, UserServiceContext } from '../services/context.js';
import { judgeInput } from '../services/validation.js';
import { jsonTextOf } from '../services/records.js';
import type { RequestContext } from '../services/auth/context.js';
import { successOf, successStatus, takesIfMatch, type ApiRoute, type HandlerInput } from './define-route.js';
import { decodeSegment } from './path-segment.js';
import { answerText, JSON_TYPE } from '../middleware/answer-text.js';

/** What an operation without a declared query or body accepts: nothing (`{}` for a body). */
const NOTHING = z.object({}).strict();

/**
 * Path parameters are record ids (uuids), compared case-insensitively as component ids are elsewhere: the service
 * sees them lower-cased, as PostgreSQL prints them, so an id in upper case finds its record.
 */
const lowerCased = (params: Record<string, string>) =>
  Object.fromEntries(Object.entries(params).map(([k, v]) => [k, v.toLowerCase()]));

/** A CSV answer is asked for: `format=csv`, or `Accept` preferring text/csv to JSON. */
const wantsCsv = (req: Request, query: unknown) =>
  (query as { format?: unknown } | undefined)?.format === 'csv' ||
  req.accepts(['application/json', 'text/csv']) === 'text/csv';

/** `/monitors/{id}` -> `/monitors/:id`. */
const expressPath = (path: string) => path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');

/**
 * What an operation's handler gets from a caller and the request's raw parameters, query and body: the token's scope
 * and the caller's role checked first (403 whatever was sent), then the strict query parse and the body's schema with
 * its checks (one 400 naming every problem). The one path into a handler: mountRoutes and the MCP tools (routes/mcp)
 * both take it, so a tool is judged exactly as its REST operation.
 */
export async function operationInput(
  deps: ApiDeps,
  route: ApiRoute,
  auth: RequestContext,
  raw: { params: unknown; query: unknown; body: unknown },
  extra: Pick<ServiceContext, 'now' | 'inTransaction' | 'ifMatch'>,
): Promise<HandlerInput<string, z.ZodType, z.ZodType>> {
  if (route.method !== 'get') assertWriteScope(auth.scope);
  if (route.roles !== 'read' && route.roles !== 'self') assertCan(auth.role, route.roles);
  const query = parseOrThrow(route.request?.query ?? NOTHING, raw.query, 'query');
  const params = lowerCased(raw.params as Record<string, string>);
  const caller: ServiceContext = { ...auth, now: extra.now, inTransaction: extra.inTransaction };
  const body = route.request?.body;
  const checks = body?.checks;
  const parsedBody = !body
    ? parseOrThrow(NOTHING, raw.body ?? {}, 'body')
    : checks
      ? await judgeInput(body.schema, checks, deps, { ctx: caller, params }, raw.body)
      : parseOrThrow(body.schema, raw.body, 'body');
  return { ctx: { ...caller, ifMatch: extra.ifMatch }, params, query, body: parsedBody };
}

/** Where labelRoutes puts the declared path a request matched (`/monitors/{id}`), for mountRoutes' dispatch. */
const ROUTE_PATH = 'routePath';

/**
 * Serves each declared operation on `router` (the authenticated /api/v1 router): the role check, the strict query
 * and body parse, the Idempotency-Key protocol and the success status all come from the declaration.
 *
 * One layer serves them all: the request goes straight to the declared path labelRoutes matched, and there to its
 * method's handlers (its 405 guard, its operation, its 405 answer), as Express's routes would take it. Express would
 * otherwise walk every layer of every path before it (hundreds of patterns tested per request), and a Router per path
 * still cost each request a router pass, a route pass and a second match of its path: a measurable share of a
 * GET /monitors/{id} (docs/benchmarks.md, issue 33).
 */
export function mountRoutes(router: Router, routes: readonly ApiRoute[], deps: ApiDeps): void {
  const clock = deps.clock ?? (() => new Date());
  const paths = new Map<string, DeclaredPath>();
  const pathOf = (path: string) => {
    let p = paths.get(path);
    if (!p) paths.set(path, (p = declaredPath(path)));
    return p;
  };
  for (const route of routes) pathOf(route.path).allowed.push(route.method.toUpperCase());
  for (const p of paths.values()) p.notAllowed = notAllowed(allowOf(p.allowed));
  for (const route of routes) {
    const status = successStatus(route);
    const success = successOf(route);
    const toBody = (result: unknown) => (success.data ? { data: result } : result);
    const body = route.request?.body;
    const conditional = takesIfMatch(route);

    const handle: RequestHandler = async (req, res) => {
      if (route.roles === 'self') return void (await handleOwn(req, res, () => undefined));
      const input = await operationInput(deps, route, ctxOf(res), req, {
        now: clock(),
        inTransaction: route.idempotent ? storeAnswerInTransaction(res, status, toBody) : undefined,
        ifMatch: conditional ? parseIfMatch(req.get('if-match')) : undefined,
      });
      const { query } = input;
      if (route.csv && wantsCsv(req, query)) {
        res
          .status(status)
          .type('text/csv; charset=utf-8')
          .send(await route.csv.handler(deps, input));
        return;
      }
      const result = await route.handler(deps, input);
      if (answerNotStored(res)) {
        throw new Error(
          `${route.method.toUpperCase()} ${route.path} is idempotent but its service did not store the answer`,
        );
      }
      const stored = storedAnswer(res);
      // One record with a version answers its ETag (a stored answer: the version it was stored with).
      const etag = success.data
        ? etagOf(stored !== undefined ? (JSON.parse(stored) as { data?: unknown }).data : result)
        : undefined;
      if (etag) res.setHeader('ETag', etag);
      if (etag && route.method === 'get' && ifNoneMatchNames(req.get('if-none-match'), etag))
        return void res.status(304).end();
      if (status === 204) res.status(204).end();
      else if (stored !== undefined) answerText(req, res, status, JSON_TYPE, stored);
      else {
        // The service's own JSON text of what it answers (services/records.ts withJsonText), else res.json's.
        const text = jsonTextOf(result);
        if (text === undefined) res.status(status).json(toBody(result));
        else answerText(req, res, status, JSON_TYPE, success.data ? `{"data":${text}}` : text);
      }
    };

    // A `/me/...` operation (defineUserRoute): the person's own, no workspace, no role, no If-Match or safe retry.
    const handleOwn: RequestHandler = async (req, res) => {
      const query = parseOrThrow(route.request?.query ?? NOTHING, req.query, 'query');
      const parsedBody = parseOrThrow(body?.schema ?? NOTHING, body ? req.body : (req.body ?? {}), 'body');
      const ctx = { ...userCtxOf(res), now: clock() } satisfies UserServiceContext;
      // defineUserRoute's handler takes the person's context where a workspace route's takes ServiceContext.
      const result = await route.handler(deps, {
        ctx: ctx as unknown as ServiceContext,
        params: lowerCased(req.params as Record<string, string>),
        query,
        body: parsedBody,
      });
      if (status === 204) res.status(204).end();
      else res.status(status).json(toBody(result));
    };

    const chain: RequestHandler[] = [jsonBodyRule(body !== undefined, body?.yaml === true, body?.large === true)];
    if (route.idempotent) chain.push(idempotency(deps));
    chain.push(
      route.idempotent
        ? async (req, res, next) => {
            try {
              await handle(req, res, next);
            } catch (err) {
              // Free the key before the error is answered: a client retrying at once must not be told 409.
              await releaseIdempotencyClaim(deps.prisma, res);
              throw err;
            }
          }
        : handle,
    );
    pathOf(route.path).handlers.set(route.method.toUpperCase(), chain);
  }
  // The path labelRoutes matched, or (a router mounted without it) matched here and labelled as Express labels a route.
  const match = pathMatcher(routes, '');
  router.use((req, res, next) => {
    const labelled: unknown = res.locals[ROUTE_PATH];
    let path = typeof labelled === 'string' ? labelled : undefined;
    if (path === undefined) {
      path = match(req.path)?.path;
      if (path !== undefined) res.locals[ROUTE_LABEL] ??= `${req.baseUrl}${expressPath(path)}`;
    }
    const declared = path === undefined ? undefined : paths.get(path);
    if (declared) serve(declared, req, res, next);
    else next();
  });
}

/** A declared path: its pattern with its parameters' names, the methods it takes and their handlers. */
interface DeclaredPath {
  /** Case-insensitive, a trailing slash allowed, one group per parameter. */
  pattern: RegExp;
  names: string[];
  /** A path without parameters answers its own 405 before any operation (`/monitors/counts` is not an id). */
  guarded: boolean;
  allowed: string[];
  handlers: Map<string, RequestHandler[]>;
  notAllowed: RequestHandler;
}

function declaredPath(path: string): DeclaredPath {
  const names = [...path.matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((m) => m[1]!);
  return {
    pattern: pathPattern(path),
    names,
    guarded: names.length === 0,
    allowed: [],
    handlers: new Map(),
    notAllowed: () => undefined,
  };
}

/** GET also answers HEAD. */
const allowOf = (allowed: string[]) => (allowed.includes('GET') ? [...allowed, 'HEAD'] : allowed).join(', ');

/** A known path asked with a method it does not take: 405 naming the ones it does; OPTIONS: 204 with the same Allow. */
const notAllowed =
  (allow: string): RequestHandler =>
  (req, res) => {
    res.setHeader('Allow', allow);
    // OPTIONS asks exactly this question: answered, not refused (a CORS preflight never gets here).
    if (req.method === 'OPTIONS') return void res.status(204).end();
    throw new AppError(
      'invalid_request',
      `${req.method} is not allowed here; this path takes ${allow}`,
      undefined,
      405,
    );
  };

/**
 * One request on its declared path, as Express's routes serve it: the parameters decoded (a malformed escape is a
 * 400), a path without parameters' 405 guard, the method's handlers (HEAD by GET's when it has none of its own) in
 * order, and otherwise, or when they all pass it on, the 405 answer. A handler's error, thrown or rejected, goes to
 * `next` (the error middleware).
 */
function serve(declared: DeclaredPath, req: Request, res: Response, next: NextFunction): void {
  const found = declared.pattern.exec(req.path);
  if (!found) return next();
  const params: Record<string, string> = {};
  try {
    for (let i = 0; i < declared.names.length; i++) params[declared.names[i]!] = decodeSegment(found[i + 1]!);
  } catch (err) {
    return next(err);
  }
  req.params = params;
  const method = req.method;
  const handlers =
    declared.guarded && !declared.allowed.includes(method === 'HEAD' ? 'GET' : method)
      ? undefined
      : (declared.handlers.get(method) ?? (method === 'HEAD' ? declared.handlers.get('GET') : undefined));
  if (!handlers) return run([declared.notAllowed], req, res, next);
  run(handlers, req, res, (err?: unknown) =>
    err === undefined || err === null || err === 'route'
      ? run([declared.notAllowed], req, res, next)
      : next(err === 'router' ? undefined : err),
  );
}

/** Express's handler protocol: each handler runs when the one before calls `next()`; a throw or rejection is `next(err)`. */
function run(handlers: readonly RequestHandler[], req: Request, res: Response, done: NextFunction): void {
  let i = 0;
  const step: NextFunction = (err?: unknown) => {
    if (err !== undefined && err !== null) return done(err);
    const handler = handlers[i++];
    if (!handler) return done();
    try {
      const ret: unknown = handler(req, res, step);
      if (ret instanceof Promise) ret.then(undefined, (e: unknown) => step(e || new Error('Rejected promise')));
    } catch (e) {
      step(e);
    }
  };
  step();
}

/**
 * Labels each request for a declared operation with its route template (`/api/v1/monitors/:id`) before anything can
 * answer it, for the request log and the duration metric (middleware/request-log.ts routeOf): a 401, a 429 or an
 * error the error middleware answers carry it too, although Express has left the route by then. Mounted on the app
 * (every path), it matches what the API router mounted at `base` would see: `base` case-insensitively, then the
 * operation's path as Express matches it (case-insensitive, a trailing slash allowed). A path no operation has keeps
 * no label (exceptOperations then lets it into the routers that serve such paths).
 */
export function labelRoutes(routes: readonly ApiRoute[], base: string): RequestHandler {
  const match = pathMatcher(routes, base);
  const lowerBase = base.toLowerCase();
  return (req, res, next) => {
    const path = req.path;
    const found =
      path.length > base.length && path[base.length] === '/' && path.slice(0, base.length).toLowerCase() === lowerBase
        ? match(path.slice(base.length))
        : undefined;
    if (!found) return next();
    res.locals[ROUTE_LABEL] = found.label;
    res.locals[ROUTE_PATH] = found.path;
    if (found.large) res.locals[LARGE_BODY] = true;
    next();
  };
}

/**
 * A router whose paths are no API operation's (the public documentation, the API's index), entered only by a request
 * labelRoutes left unlabelled: an operation's request passes it by without a router pass (whose exit alone costs a
 * setImmediate hop).
 */
export function exceptOperations(router: Router): RequestHandler {
  const handler: RequestHandler = (req, res, next) =>
    res.locals[ROUTE_PATH] === undefined ? router(req, res, next) : next();
  // The router's layers stay visible to whoever walks the app's routers (test/support/express-routes.ts lists what
  // the app mounts, and the public surface's fuzzer must find the documents' routes there).
  return Object.assign(handler, { stack: router.stack as unknown });
}

/**
 * The declared path a request path is (its template, its label under `base`, whether it takes a large body), matched
 * as Express matches (case-insensitive, a trailing slash allowed); paths without parameters first: `/monitors/counts`
 * is not `/monitors/{id}`. Only the paths of the request's first segment are tried (every declared path starts with a
 * fixed word), not the sixty-odd of the API.
 */
function pathMatcher(routes: readonly ApiRoute[], base: string) {
  const paths = [...new Set(routes.map((r) => r.path))].sort((a, b) => +a.includes('{') - +b.includes('{'));
  const bySegment = new Map<string, Template[]>();
  for (const path of paths) {
    const template: Template = {
      path,
      label: `${base}${expressPath(path)}`,
      pattern: pathPattern(path),
      // The global body reader leaves a large body to its operation's own (jsonBodyRule).
      large: routes.some((r) => r.path === path && r.request?.body?.large === true),
    };
    const segment = firstSegment(path);
    if (segment.includes('{')) throw new Error(`${path}: a declared path starts with a fixed word`);
    bySegment.set(segment, [...(bySegment.get(segment) ?? []), template]);
  }
  return (path: string) => bySegment.get(firstSegment(path))?.find((t) => t.pattern.test(path));
}

interface Template {
  path: string;
  label: string;
  pattern: RegExp;
  large: boolean;
}

/** `/monitors/{id}/results` -> `monitors`, lower-cased (paths match case-insensitively). */
function firstSegment(path: string): string {
  const end = path.indexOf('/', 1);
  return (end === -1 ? path.slice(1) : path.slice(1, end)).toLowerCase();
}

/** A declared path's pattern, as Express matches it (case-insensitive, a trailing slash allowed), a group per parameter. */
const pathPattern = (path: string) =>
  new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[A-Za-z0-9_]+\}/g, '([^/]+)')}/?$`, 'i');
