import cors from 'cors';
import express, { Router, type ErrorRequestHandler, type RequestHandler, type Response } from 'express';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { consumeOrPass } from '../../middleware/rate-limit.js';
import type { ApiDeps } from '../../deps.js';
import { ROUTE_LABEL } from '../../middleware/request-log.js';
import { createOAuthClient } from '../../services/oauth/create-oauth-client.js';
import { createOAuthToken } from '../../services/oauth/create-oauth-token.js';
import { deleteOAuthToken } from '../../services/oauth/delete-oauth-token.js';
import { OAuthError, resourceUrl, SCOPES, type OAuthResourceName } from '../../services/oauth/oauth-rules.js';

/** Where the protected resource metadata of each resource lives (RFC 9728 §3.1: the resource's path appended). */
export const PROTECTED_RESOURCE_METADATA_PATH: Record<OAuthResourceName, string> = {
  mcp: '/.well-known/oauth-protected-resource/mcp',
  api: '/.well-known/oauth-protected-resource/api/v1',
};

/** OAuth answers are never stored by a cache (RFC 6749 §5.1); errors neither. */
function noStore(res: Response): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Pragma', 'no-cache');
}

/** An OAuthError as RFC 6749 §5.2 and RFC 7591 §3.2.2 write it; a malformed body as `invalid_request`. */
const oauthErrors =
  (malformed: OAuthError['error']): ErrorRequestHandler =>
  (err: unknown, _req, res, next) => {
    const known =
      err instanceof OAuthError
        ? err
        : (err as { type?: string } | null)?.type?.startsWith('entity.') ||
            (err as { type?: string } | null)?.type === 'charset.unsupported'
          ? new OAuthError(malformed, 'The request body could not be read')
          : null;
    if (!known) return next(err);
    noStore(res);
    if (known.error === 'invalid_client') res.setHeader('WWW-Authenticate', 'Basic realm="statusvane"');
    res.status(known.status).json({ error: known.error, error_description: known.description });
  };

/** The request must be form-encoded (token and revoke requests, RFC 6749 §3.2). */
const formOnly: RequestHandler = (req, _res, next) => {
  if (!req.is('application/x-www-form-urlencoded'))
    return next(new OAuthError('invalid_request', 'Send the request as application/x-www-form-urlencoded'));
  next();
};

/**
 * A per-address limit in Redis (it holds across API replicas): over it, 429 `temporarily_unavailable` with
 * Retry-After. A limiter that cannot reach Redis lets the request through (logged): the endpoints stay usable.
 */
function perAddress(deps: ApiDeps, keyPrefix: string, points: number, duration: number): RequestHandler {
  const limiter = new RateLimiterRedis({
    storeClient: deps.redis,
    points,
    duration,
    keyPrefix,
    useRedisPackage: false,
  });
  return async (req, res, next) => {
    const within = await consumeOrPass(limiter, req.ip ?? 'unknown', {
      logger: deps.logger,
      what: 'oauth',
      requestId: res.locals.requestId,
    });
    if (within === true) return next();
    res.setHeader('Retry-After', String(Math.max(1, Math.ceil(within.msBeforeNext / 1000))));
    next(new OAuthError('temporarily_unavailable', 'Too many requests from this address; try again later', 429));
  };
}

const labelled =
  (label: string): RequestHandler =>
  (_req, res, next) => {
    res.locals[ROUTE_LABEL] = label;
    next();
  };

/**
 * The OAuth 2.1 authorization server's endpoints besides the consent page (beyond-the-seed §11), at the service root
 * and in their own standards' terms (no envelope): the metadata documents (RFC 8414, RFC 9728), dynamic client
 * registration (RFC 7591), the token endpoint and revocation (RFC 7009). Public clients only, so every endpoint takes
 * cross-origin requests: nothing here reads a cookie.
 */
export function oauthRouter(deps: ApiDeps): Router {
  const router = Router();
  const base = deps.config.publicBaseUrl;
  const clock = deps.clock ?? (() => new Date());
  const anyOrigin = cors({ origin: '*', methods: ['GET', 'POST'], maxAge: 600 });
  const form = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 20 });

  router.get(
    '/.well-known/oauth-authorization-server',
    anyOrigin,
    labelled('/.well-known/oauth-authorization-server'),
    (_req, res) => {
      res.setHeader('Cache-Control', 'public, max-age=3600');
      res.json({
        issuer: base,
        authorization_endpoint: `${base}/oauth/authorize`,
        token_endpoint: `${base}/oauth/token`,
        registration_endpoint: `${base}/oauth/register`,
        revocation_endpoint: `${base}/oauth/revoke`,
        scopes_supported: SCOPES,
        response_types_supported: ['code'],
        response_modes_supported: ['query'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_methods_supported: ['none'],
        revocation_endpoint_auth_methods_supported: ['none'],
        code_challenge_methods_supported: ['S256'],
        authorization_response_iss_parameter_supported: true,
        service_documentation: `${base}/docs`,
      });
    },
  );
  for (const resource of ['mcp', 'api'] as const) {
    const path = PROTECTED_RESOURCE_METADATA_PATH[resource];
    router.get(path, anyOrigin, labelled(path), (_req, res) => {
      res.setHeader('Cache-Control', 'public, max-age=3600');
      res.json({
        resource: resourceUrl(base, resource),
        authorization_servers: [base],
        scopes_supported: SCOPES,
        bearer_methods_supported: ['header'],
        resource_name: resource === 'mcp' ? 'Statusvane MCP server' : 'Statusvane management API',
        resource_documentation: `${base}/docs`,
      });
    });
  }

  const register: RequestHandler = async (req, res) => {
    const client = await createOAuthClient(deps, { ctx: { now: clock() }, input: req.body ?? {} });
    noStore(res);
    res.status(201).json(client);
  };
  const issue: RequestHandler = async (req, res) => {
    const answer = await createOAuthToken(deps, { ctx: { now: clock() }, input: req.body ?? {} });
    noStore(res);
    res.json(answer);
  };
  const revoke: RequestHandler = async (req, res) => {
    await deleteOAuthToken(deps, { ctx: { now: clock() }, input: req.body ?? {} });
    noStore(res);
    res.status(200).end();
  };
  const { registerPerHour, tokenPerMinute } = deps.config.oauthLimits;
  const registerLimit = perAddress(deps, 'sv:oauth-register', registerPerHour, 3600);
  const tokenLimit = perAddress(deps, 'sv:oauth-token', tokenPerMinute, 60);
  router.options(['/oauth/register', '/oauth/token', '/oauth/revoke'], anyOrigin);
  router.post(
    '/oauth/register',
    anyOrigin,
    labelled('/oauth/register'),
    registerLimit,
    express.json({ limit: '16kb' }),
    register,
    oauthErrors('invalid_client_metadata'),
  );
  router.post(
    '/oauth/token',
    anyOrigin,
    labelled('/oauth/token'),
    tokenLimit,
    formOnly,
    form,
    issue,
    oauthErrors('invalid_request'),
  );
  router.post(
    '/oauth/revoke',
    anyOrigin,
    labelled('/oauth/revoke'),
    tokenLimit,
    formOnly,
    form,
    revoke,
    oauthErrors('invalid_request'),
  );
  return router;
}
