import type { ErrorRequestHandler } from 'express';
import { AppError, isUnavailableError, type Logger } from '@statusvane/shared';
import type { AssetUrls } from '../../views/assets.js';
import { MessagePage } from '../../views/layout.js';
import { renderPage } from '../../views/render.js';
import type { PageAnswer } from '../define-page.js';

const home = { href: '/app', label: 'Go to the console' };

export function notFoundPage(assets: AssetUrls, text = 'There is nothing at this address.'): PageAnswer {
  return {
    status: 404,
    view: (
      <MessagePage assets={assets} title="Not found" action={home}>
        {text}
      </MessagePage>
    ),
  };
}

export function forbiddenPage(assets: AssetUrls, text: string): PageAnswer {
  return {
    status: 403,
    view: (
      <MessagePage assets={assets} title="Not allowed" action={home}>
        {text}
      </MessagePage>
    ),
  };
}

/** The answer to a write whose CSRF token or Origin is wrong: nothing was written. */
export function refusedWritePage(assets: AssetUrls): string {
  return renderPage(
    <MessagePage assets={assets} title="Request refused" action={{ href: '/app', label: 'Back to the console' }}>
      This form was out of date or did not come from this site, so nothing was changed. Reload the page and try again.
    </MessagePage>,
  );
}

/**
 * Errors of console requests, as pages: an AppError with its status and message (a service's 403, 404, 409 ...);
 * a dependency outage 503; anything else 500, logged once with the request id, without internals on the page.
 */
export function consoleErrors(logger: Logger, assets: () => Promise<AssetUrls | null>): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    void (async () => {
      let status = 500;
      let title = 'Something went wrong';
      let text = 'The page could not be shown. Try again in a moment; the request id identifies it.';
      const bodyStatus = (err as { status?: unknown } | null)?.status;
      if (err instanceof AppError && err.httpStatus < 500) {
        status = err.httpStatus;
        title = status === 404 ? 'Not found' : status === 403 ? 'Not allowed' : 'Request refused';
        text = err.message;
      } else if (typeof bodyStatus === 'number' && bodyStatus >= 400 && bodyStatus < 500) {
        status = bodyStatus;
        title = 'Request refused';
        text = 'The form could not be read.';
      } else if (isUnavailableError(err) || (err instanceof AppError && err.httpStatus === 503)) {
        status = 503;
        title = 'Temporarily unavailable';
        text = 'The console cannot reach its database or cache right now. Try again in a moment.';
        res.setHeader('Retry-After', '5');
      } else {
        const e = err instanceof Error ? err : new Error(String(err));
        logger.error('unhandled error', {
          requestId: res.locals.requestId,
          method: req.method,
          route: 'console',
          error: e.message,
          stack: e.stack,
        });
      }
      if (res.headersSent) {
        res.end();
        return;
      }
      const urls = await assets().catch(() => null);
      res.setHeader('Cache-Control', 'no-store');
      res
        .status(status)
        .type('html')
        .send(
          renderPage(
            <MessagePage
              assets={urls ?? { css: '', js: '', icon: '', statusCss: '', statusJs: '', docsCss: '' }}
              title={title}
              action={home}
            >
              {text}
            </MessagePage>,
          ),
        );
    })();
  };
}
