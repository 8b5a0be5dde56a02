import express, { type Request, type RequestHandler, type Router } from 'express';
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
 * Each declared path gets a router of its own (its 405 guard, its operations, its 405 answer), and a request goes
 * straight to the one of the path labelRoutes matched: Express would otherwise walk every layer of every path before
 * it (hundreds of patterns tested per request, a measurable share of a GET /monitors/{id}).
 */
export function mountRoutes(router: Router, routes: readonly ApiRoute[], deps: ApiDeps): void {
  const byPath = new Map<string, Router>();
  const routerOf = (path: string) => {
    let r = byPath.get(path);
    if (!r) byPath.set(path, (r = express.Router()));
    return r;
  };
  const clock = deps.clock ?? (() => new Date());
  const methods = new Map<string, string[]>();
  for (const route of routes) methods.set(route.path, [...(methods.get(route.path) ?? []), route.method.toUpperCase()]);
  const allowOf = (allowed: string[]) => (allowed.includes('GET') ? [...allowed, 'HEAD'] : allowed).join(', ');
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
  // A path without parameters that a path with one also matches (`/monitors/counts` and `/monitors/{id}`) is answered
  // as itself whatever the method: its 405 comes before the other path's operations could take `counts` for an id.
  for (const [path, allowed] of methods) {
    if (path.includes('{')) continue;
    const allow = allowOf(allowed);
    const guard = notAllowed(allow);
    routerOf(path).all(expressPath(path), (req, res, next) =>
      allow.split(', ').includes(req.method) ? next() : guard(req, res, next),
    );
  }
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
      else if (stored !== undefined) res.status(status).type('application/json').send(stored);
      else {
        // The service's own JSON text of what it answers (services/records.ts withJsonText), else res.json's.
        const text = jsonTextOf(result);
        if (text === undefined) res.status(status).json(toBody(result));
        else
          res
            .status(status)
            .type('application/json')
            .send(success.data ? `{"data":${text}}` : text);
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
    routerOf(route.path)[route.method](expressPath(route.path), ...chain);
  }
  // A known path asked with a method it does not take: 405 naming the ones it does (GET also answers HEAD);
  // OPTIONS: 204 with the same Allow.
  for (const [path, allowed] of methods) routerOf(path).all(expressPath(path), notAllowed(allowOf(allowed)));
  // The path labelRoutes matched, or (a router mounted without it) matched here.
  const match = pathMatcher(routes, '');
  router.use((req, res, next) => {
    const labelled: unknown = res.locals[ROUTE_PATH];
    const path = typeof labelled === 'string' ? labelled : match(req.path)?.path;
    const own = path === undefined ? undefined : byPath.get(path);
    if (own) own(req, res, next);
    else next();
  });
}

/**
 * Labels each request for a declared operation with its route template (`/api/v1/monitors/:id`) before anything can
 * answer it, for the request log and the duration metric (middleware/request-log.ts routeOf): a 401, a 429 or an
 * error the error middleware answers carry it too, although Express has left the route by then. Mounted on the app
 * (every path), it matches what the API router mounted at `base` would see: `base` case-insensitively, then the
 * operation's path as Express matches it (case-insensitive, a trailing slash allowed). A path no operation has keeps
 * no label (skipOperations then lets it into the routers that serve such paths).
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
 * The first layer of a router whose paths are no API operation's (the public documentation, the API's index): a
 * request labelled as an operation (labelRoutes) leaves the router at once instead of walking its routes for nothing.
 */
export const skipOperations: RequestHandler = (_req, res, next) =>
  next(res.locals[ROUTE_PATH] === undefined ? undefined : 'router');

/**
 * The declared path a request path is (its template, its label under `base`, whether it takes a large body), matched
 * as Express matches (case-insensitive, a trailing slash allowed); paths without parameters first: `/monitors/counts`
 * is not `/monitors/{id}`.
 */
function pathMatcher(routes: readonly ApiRoute[], base: string) {
  const paths = [...new Set(routes.map((r) => r.path))].sort((a, b) => +a.includes('{') - +b.includes('{'));
  const templates = paths.map((path) => ({
    path,
    label: `${base}${expressPath(path)}`,
    pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[A-Za-z0-9_]+\}/g, '[^/]+')}/?$`, 'i'),
    // The global body reader leaves a large body to its operation's own (jsonBodyRule).
    large: routes.some((r) => r.path === path && r.request?.body?.large === true),
  }));
  return (path: string) => templates.find((t) => t.pattern.test(path));
}
