import type { ErrorRequestHandler, Request, Response } from 'express';
import { AppError, isUnavailableError, type Logger } from '@statusvane/shared';
import { loadAssets, type AssetUrls } from '../../views/assets.js';
import { renderMessage } from '../../views/status-page/page-forms.js';

/**
 * Nothing loads from anywhere else: styles and images from this origin only (the hashed assets; no inline style),
 * forms post only here, the page cannot be framed. `script`: the status pages' one script from this origin (it
 * rewrites times to the visitor's zone; never inline), none at all otherwise. `brandImages`: a status page with a
 * logo or favicon of its own also loads images over https from anywhere (they are linked, not proxied).
 */
export function contentSecurityPolicy({ script = false, brandImages = false } = {}): string {
  return [
    "default-src 'none'",
    "style-src 'self'",
    ...(script ? ["script-src 'self'"] : []),
    brandImages ? "img-src 'self' data: https:" : "img-src 'self' data:",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Pages beside the status pages (the API index): no script at all. */
export const CONTENT_SECURITY_POLICY = contentSecurityPolicy();

/** The stylesheet and icon URLs the public pages link. */
export const publicAssets = async (): Promise<AssetUrls> => (await loadAssets()).urls;

/** JSON when the client prefers it over HTML (`Accept: application/json`); browsers and `*\/*` get HTML. */
export function wantsJson(req: Request): boolean {
  return req.accepts(['text/html', 'application/json']) === 'application/json';
}

/** Headers every public page response carries, HTML or JSON. */
export function setPageHeaders(res: Response): void {
  res.setHeader('Content-Security-Policy', contentSecurityPolicy({ script: true }));
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  res.vary('Accept');
}

/** 404, as JSON or a page; `what`: something on a page that was found (an incident), rather than the page. */
export async function sendNotFound(
  res: Response,
  json: boolean,
  what: { title: string; message: string } = {
    title: 'Status page not found',
    message: 'There is no status page at this address.',
  },
): Promise<void> {
  res.setHeader('Cache-Control', 'no-store');
  if (json) {
    res.status(404).json(new AppError('not_found', 'No status page at this address').toEnvelope());
    return;
  }
  const page = renderMessage(what.title, what.message, await publicAssets());
  res.status(404).type('html').send(page);
}

/**
 * Errors on the public routes: JSON requests get the API's envelope (the app's error middleware); HTML requests
 * get a page, 503 while a dependency is down, otherwise 500 (logged once, like the API does).
 */
export function publicPageErrors(logger: Logger): ErrorRequestHandler {
  return async (err: unknown, req, res, next) => {
    if (res.headersSent || wantsJson(req) || req.is('application/json')) {
      next(err);
      return;
    }
    res.setHeader('Cache-Control', 'no-store');
    const assets = await publicAssets();
    if (err instanceof AppError && err.httpStatus < 500) {
      res
        .status(err.httpStatus)
        .type('html')
        .send(renderMessage('Request refused', err.message, assets));
      return;
    }
    // body-parser's own errors (a login form over 4 KiB, a bad charset) carry a 4xx status.
    const status = (err as { status?: unknown } | null)?.status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      res
        .status(status)
        .type('html')
        .send(renderMessage('Request refused', 'The request could not be read.', assets));
      return;
    }
    if (isUnavailableError(err)) {
      res.setHeader('Retry-After', '5');
      res
        .status(503)
        .type('html')
        .send(
          renderMessage(
            'Temporarily unavailable',
            'This status page cannot be shown right now. Try again in a moment.',
            assets,
          ),
        );
      return;
    }
    const e = err instanceof Error ? err : new Error(String(err));
    logger.error('unhandled error', {
      requestId: res.locals.requestId,
      method: req.method,
      route: 'public-page',
      error: e.message,
      stack: e.stack,
    });
    res
      .status(500)
      .type('html')
      .send(renderMessage('Something went wrong', 'This status page cannot be shown right now.', assets));
  };
}
