import { createHash } from 'node:crypto';
import { Router, type Request, type Response } from 'express';
import { ifNoneMatchNames } from '../../middleware/if-match.js';
import { loadAssets } from '../../views/assets.js';
import {
  renderDocsIndex,
  renderDocsReference,
  renderDocsSearch,
  renderDocsTag,
  renderDocsWebhooks,
  type Doc,
  type DocsLinks,
} from '../../views/docs/docs-pages.js';
import { buildOpenApiDocument, OPENAPI_PATH } from './openapi-document.js';

export const DOCS_PATH = '/docs';

/** The document changes only with a deploy: let clients and proxies keep it a little while, then revalidate. */
const CACHE_CONTROL = 'public, max-age=300, must-revalidate';

/** No script, nothing from anywhere else: the one stylesheet and the icon from this origin's hashed assets. */
const DOCS_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

interface Rendered {
  body: string;
  etag: string;
}

function rendered(body: string): Rendered {
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}

// Built on first request, not at start-up: most processes (and tests) never serve the docs.
let json: Rendered | undefined;
const pages = new Map<string, Rendered>();
const jsonDoc = () => (json ??= rendered(JSON.stringify(buildOpenApiDocument())));

function send(req: Request, res: Response, doc: Rendered, type: string): void {
  res.setHeader('Cache-Control', CACHE_CONTROL);
  res.setHeader('ETag', doc.etag);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  if (ifNoneMatchNames(req.get('if-none-match'), doc.etag)) return void res.status(304).end();
  res.type(type).send(doc.body);
}

async function links(): Promise<DocsLinks> {
  return { base: DOCS_PATH, specUrl: OPENAPI_PATH, assets: (await loadAssets()).urls };
}

/** A page of the reference, rendered once (null: no such page). */
async function page(key: string, render: (doc: Doc, l: DocsLinks) => string | null): Promise<Rendered | null> {
  const cached = pages.get(key);
  if (cached) return cached;
  const body = render(buildOpenApiDocument() as Doc, await links());
  // Only pages that exist are kept: a request cannot grow the map.
  if (body === null) return null;
  const out = rendered(body);
  pages.set(key, out);
  return out;
}

function htmlHeaders(res: Response): void {
  res.setHeader('Content-Security-Policy', DOCS_CSP);
  res.setHeader('Referrer-Policy', 'no-referrer');
}

/**
 * Public, unauthenticated documentation: the OpenAPI document at GET /api/v1/openapi.json and a human reference at
 * GET /docs (the overview and the resources), one page per tag (/docs/<tag>), /docs/webhooks, /docs/reference
 * (responses, headers, schemas) and /docs/search?q= (a filter that works without JavaScript). Mount before the
 * authenticated /api/v1 router.
 */
export function docsRouter(): Router {
  const router = Router();

  router.get(OPENAPI_PATH, (req, res) => {
    // Public and credential-free, so any origin may read it (API explorers and code generators in a browser).
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'");
    send(req, res, jsonDoc(), 'application/json');
  });

  router.get(DOCS_PATH, async (req, res) => {
    htmlHeaders(res);
    send(req, res, (await page('index', renderDocsIndex))!, 'text/html');
  });

  router.get(`${DOCS_PATH}/search`, async (req, res) => {
    htmlHeaders(res);
    res.setHeader('Cache-Control', 'no-store');
    const q = typeof req.query.q === 'string' ? req.query.q.slice(0, 100) : '';
    res.type('text/html').send(renderDocsSearch(buildOpenApiDocument() as Doc, await links(), q));
  });

  router.get(`${DOCS_PATH}/:page`, async (req, res, next) => {
    const name = String(req.params.page);
    if (!/^[a-z0-9-]{1,60}$/.test(name)) return next();
    const found = await page(
      name,
      name === 'webhooks'
        ? renderDocsWebhooks
        : name === 'reference'
          ? renderDocsReference
          : (d, l) => renderDocsTag(d, l, name),
    );
    if (!found) return next();
    htmlHeaders(res);
    send(req, res, found, 'text/html');
  });

  return router;
}
