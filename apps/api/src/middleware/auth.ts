import type { RequestHandler, Response } from 'express';
import { authenticate, type AuthDeps } from '../services/auth/authenticate.js';
import type { RequestContext } from '../services/auth/context.js';

export const WORKSPACE_HEADER = 'x-statusvane-workspace';

/** Resolves the bearer token into res.locals.ctx; every route under /api/v1 runs behind it. */
export function requireAuth(deps: AuthDeps): RequestHandler {
  return async (req, res, next) => {
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
