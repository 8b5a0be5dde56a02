import type { Pagination } from '@statusvane/shared';
import type { z } from 'zod';
import type { ApiDeps } from '../deps.js';
import type { Permission } from '../services/auth/permissions.js';
import type { ServiceContext, UserServiceContext } from '../services/context.js';
import type { BodyChecks } from '../services/validation.js';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type Tag =
  | 'Monitors'
  | 'Components'
  | 'Status pages'
  | 'Maintenance'
  | 'Incidents'
  | 'Escalation policies'
  | 'On-call'
  | 'Access'
  | 'Configuration'
  | 'Audit events'
  | 'Events'
  | 'Secrets'
  | 'Reports';
/**
 * Who may call: `read` is every role; otherwise a permission of services/auth/permissions.ts; `self` is a person
 * acting on what is theirs (`/me/...`: declared with defineUserRoute, no workspace involved).
 */
export type Roles = 'read' | Permission | 'self';

/** `{id}` and `{userId}` out of `/members/{userId}/x/{id}`: the path declares its parameters. */
export type PathParams<P extends string> = P extends `${string}{${infer K}}${infer Rest}`
  ? K | PathParams<Rest>
  : never;

/**
 * A 2xx with a body: one record as `{ data }`, a page of them as `{ data: [...], pagination }`, or (`body`) an answer
 * of its own shape, returned as the handler gives it (the event log's `{ data, nextCursor }`).
 */
type OkResponse =
  | { description: string; data: z.ZodType }
  | { description: string; page: z.ZodType }
  | { description: string; body: z.ZodType };
/** The success answer (exactly one), plus the operation's own 409 when it has one. */
export type Responses = (
  { 200: OkResponse } | { 201: OkResponse } | { 202: OkResponse } | { 204: { description: string } }
) & {
  409?: { description: string; example: string };
};

/** The 409 of an idempotent route: a retry while the first request with its key is still running. */
export const KEY_IN_FLIGHT = {
  description: 'a request with the same `Idempotency-Key` is still in flight.',
  example: 'A request with this Idempotency-Key is in progress',
};

/** What the handler returns for the success declared: the record, the page, or nothing (204). */
export type ResultOf<R> = R extends { 200: infer O } | { 201: infer O } | { 202: infer O }
  ? O extends { data: infer S extends z.ZodType }
    ? z.infer<S>
    : O extends { page: infer S extends z.ZodType }
      ? { data: Array<z.infer<S>>; pagination: Pagination }
      : O extends { body: infer S extends z.ZodType }
        ? z.infer<S>
        : never
  : void;

export interface BodySpec<B extends z.ZodType> {
  /** Parsed by mountRoutes (strict: unknown keys are 400) and shown in the document: the body's one schema. */
  schema: B;
  /**
   * What the schema cannot judge (the database, the configuration, the SSRF guard, rules between fields), written
   * beside the service: run with the schema's parse, so that one 400 names every problem either found.
   */
  checks?: BodyChecks<B, ApiDeps>;
  examples?: Record<string, { summary: string; value: unknown }>;
  /** Also taken as YAML (`Content-Type: application/yaml`), read as the JSON it stands for. */
  yaml?: boolean;
  /** Bodies up to LARGE_BODY_LIMIT (an OpenAPI document to import) instead of BODY_LIMIT. */
  large?: boolean;
}

export interface RouteSpec<Path extends string, Q extends z.ZodType, B extends z.ZodType, R extends Responses> {
  method: Method;
  /** OpenAPI form, relative to /api/v1: `/monitors/{id}`. Each `{name}` is a path parameter. */
  path: Path;
  operationId: string;
  tag: Tag;
  summary: string;
  /** Without the role sentence: the document appends it from `roles`. */
  description: string;
  roles: Exclude<Roles, 'self'>;
  request?: {
    /** Strict: an unknown query parameter is 400. Omitted: the operation takes none. */
    query?: Q;
    /** Omitted: the operation takes no body (none, or `{}`). */
    body?: BodySpec<B>;
  };
  responses: R;
  /** Takes `Idempotency-Key`; the service must call `ctx.inTransaction` in its transaction (services/README.md). */
  idempotent?: boolean;
  handler: (deps: ApiDeps, input: HandlerInput<Path, Q, B>) => Promise<ResultOf<R>>;
  /**
   * A CSV answer of the same operation, for a request that asks for it (`Accept: text/csv` preferred to JSON, or the
   * query's `format=csv`): answered as `text/csv` instead of the envelope.
   */
  csv?: { description: string; handler: (deps: ApiDeps, input: HandlerInput<Path, Q, B>) => Promise<string> };
}

export interface HandlerInput<Path extends string, Q extends z.ZodType, B extends z.ZodType> {
  ctx: ServiceContext;
  params: Record<PathParams<Path>, string>;
  query: z.output<Q>;
  body: z.output<B>;
}

/** A declared operation with its types erased, as mountRoutes and the document read it. */
export type ApiRoute = Omit<RouteSpec<string, z.ZodType, z.ZodType, Responses>, 'roles'> & { roles: Roles };

/**
 * Declares one operation of the management API: its path, roles, request and answer schemas, idempotency and
 * handler, in one place. mountRoutes serves it and the OpenAPI document describes it from this declaration alone.
 */
export function defineRoute<
  const Path extends string,
  R extends Responses,
  Q extends z.ZodType = z.ZodUndefined,
  B extends z.ZodType = z.ZodUndefined,
>(spec: RouteSpec<Path, Q, B, R>): ApiRoute {
  return spec as unknown as ApiRoute;
}

/** The success status an operation answers (201 for a create, 202 for work accepted, 204 for a delete, else 200). */
export function successStatus(route: ApiRoute): 200 | 201 | 202 | 204 {
  const r = route.responses as Partial<Record<200 | 201 | 202 | 204, unknown>>;
  return r[201] ? 201 : r[202] ? 202 : r[204] ? 204 : 200;
}

/** The declared success answer. */
export function successOf(route: ApiRoute): {
  description: string;
  data?: z.ZodType;
  page?: z.ZodType;
  body?: z.ZodType;
} {
  return (route.responses as Record<number, { description: string }>)[successStatus(route)]!;
}

/**
 * PUT, PATCH and DELETE honour If-Match (ctx.ifMatch): their services check it in the write itself with claimVersion
 * (services/audit/record-write.ts); test/versions.test.ts sends a stale one to every such operation.
 */
export function takesIfMatch(route: ApiRoute): boolean {
  // A person's own settings (`/me/...`) carry no version.
  return (route.method === 'put' || route.method === 'patch' || route.method === 'delete') && route.roles !== 'self';
}

/** A `/me/...` operation: as RouteSpec, but its caller is a person (UserServiceContext), never a workspace. */
export interface UserRouteSpec<
  Path extends string,
  Q extends z.ZodType,
  B extends z.ZodType,
  R extends Responses,
> extends Omit<RouteSpec<Path, Q, B, R>, 'roles' | 'idempotent' | 'handler' | 'request'> {
  request?: { query?: Q; body?: Omit<BodySpec<B>, 'checks'> };
  handler: (
    deps: ApiDeps,
    input: { ctx: UserServiceContext; params: Record<PathParams<Path>, string>; query: z.output<Q>; body: z.output<B> },
  ) => Promise<ResultOf<R>>;
}

/**
 * Declares one `/me/...` operation (services/auth/context.ts UserContext): served and documented as every other,
 * with `roles: 'self'`; mountRoutes hands its handler the person's context instead of a workspace's.
 */
export function defineUserRoute<
  const Path extends `/me/${string}`,
  R extends Responses,
  Q extends z.ZodType = z.ZodUndefined,
  B extends z.ZodType = z.ZodUndefined,
>(spec: UserRouteSpec<Path, Q, B, R>): ApiRoute {
  return { ...spec, roles: 'self' } as unknown as ApiRoute;
}
