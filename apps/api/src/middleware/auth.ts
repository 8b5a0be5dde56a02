import type { RequestHandler, Response } from 'express';
import { authenticate, authenticateUser, type AuthDeps } from '../services/auth/authenticate.js';
import type { RequestContext, UserContext } from '../services/auth/context.js';

export const WORKSPACE_HEADER = 'x-statusvane-workspace';

/** Where the caller's own operations live (`/me/contact-methods` ...): a person, not a workspace, calls them. */
export const USER_SCOPE_PREFIX = '/me/';

/**
 * Resolves the bearer token into res.locals.ctx (a workspace's caller), or, under USER_SCOPE_PREFIX, into
 * res.locals.userCtx (a person, the workspace header not read); every route under /api/v1 runs behind it.
 */
export function requireAuth(deps: AuthDeps): RequestHandler {
  return async (req, res, next) => {
    if (req.path.startsWith(USER_SCOPE_PREFIX)) {
      res.locals.userCtx = await authenticateUser(deps, { authorization: req.get('authorization') });
      next();
      return;
    }
    res.locals.ctx = await authenticate(deps, {
      authorization: req.get('authorization'),
      workspaceHeader: req.get(WORKSPACE_HEADER),
    });
    next();
  };
}

export function ctxOf(res: Response): RequestContext {
  const ctx = res.locals.ctx as RequestContext | undefined;
  if (!ctx) throw new Error('ctxOf called on a route without requireAuth');
  return ctx;
}

export function userCtxOf(res: Response): UserContext {
  const ctx = res.locals.userCtx as UserContext | undefined;
  if (!ctx) throw new Error('userCtxOf called on a route outside USER_SCOPE_PREFIX');
  return ctx;
}

/** The token a request came with, whoever it acts for: what the rate limit counts. */
export function tokenIdOf(res: Response): string {
  return ((res.locals.ctx ?? res.locals.userCtx) as { tokenId: string } | undefined)?.tokenId ?? ctxOf(res).tokenId;
}
