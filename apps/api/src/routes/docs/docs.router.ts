import { createHash } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import { ifNoneMatchNames } from '../../middleware/if-match.js';
import { buildOpenApiDocument, OPENAPI_PATH } from './openapi-document.js';
import { DOCS_STYLE_HASH, renderDocsHtml } from './render-docs.js';

export const DOCS_PATH = '/docs';

/** The document changes only with a deploy: let clients and proxies keep it a little while, then revalidate. */
const CACHE_CONTROL = 'public, max-age=300, must-revalidate';

interface Rendered {
  body: string;
  etag: string;
}

function rendered(body: string): Rendered {
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}

// Built on first request, not at start-up: most processes (and tests) never serve the docs.
let json: Rendered | undefined;
let html: Rendered | undefined;
const jsonDoc = () => (json ??= rendered(JSON.stringify(buildOpenApiDocument())));
const htmlDoc = () => (html ??= rendered(renderDocsHtml(buildOpenApiDocument(), OPENAPI_PATH)));

function send(req: Request, res: Response, doc: Rendered, type: string): void {
  res.setHeader('Cache-Control', CACHE_CONTROL);
  res.setHeader('ETag', doc.etag);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (ifNoneMatchNames(req.get('if-none-match'), doc.etag)) return void res.status(304).end();
  res.type(type).send(doc.body);
}

/**
 * Public, unauthenticated documentation: the OpenAPI document at GET /api/v1/openapi.json and a human reference at
 * GET /docs. Mount before the authenticated /api/v1 router.
 */
export function docsRouter(): Router {
  const router = Router();

  router.get(OPENAPI_PATH, (req, res) => {
    // Public and credential-free, so any origin may read it (API explorers and code generators in a browser).
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'");
    send(req, res, jsonDoc(), 'application/json');
  });

  router.get(DOCS_PATH, (req, res) => {
    // No script and nothing fetched from anywhere: the only resource is the inline stylesheet, allowed by its hash.
    res.setHeader(
      'Content-Security-Policy',
      `default-src 'none'; style-src '${DOCS_STYLE_HASH}'; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
    );
    res.setHeader('Referrer-Policy', 'no-referrer');
    send(req, res, htmlDoc(), 'text/html');
  });

  return router;
}
