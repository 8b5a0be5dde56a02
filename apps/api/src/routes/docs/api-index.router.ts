import { Router, type Request } from 'express';
import type { ApiDeps } from '../../deps.js';
import { loadAssets } from '../../views/assets.js';
import { renderApiIndex, type ApiIndex } from '../../views/api-index.js';
import { CONTENT_SECURITY_POLICY } from '../public-pages/respond.js';
import { DOCS_PATH } from './docs.router.js';
import { buildOpenApiDocument, OPENAPI_PATH } from './openapi-document.js';

const API_PATH = '/api/v1';

function apiIndex(deps: Pick<ApiDeps, 'config'>): ApiIndex {
  const base = deps.config.publicBaseUrl;
  const info = (buildOpenApiDocument() as { info?: { title?: string; version?: string } }).info;
  return {
    name: info?.title ?? 'Statusvane API',
    version: info?.version ?? '',
    links: {
      docs: `${base}${DOCS_PATH}`,
      openapi: `${base}${OPENAPI_PATH}`,
      status: `${base}/readyz`,
      api: `${base}${API_PATH}`,
    },
  };
}

const wantsHtml = (req: Request) => req.accepts(['application/json', 'text/html']) === 'text/html';

/**
 * The API's root answers without a token: an index linking the reference, the OpenAPI document and the service's
 * status. `GET /api/v1` (before the authenticated router) is JSON; `GET /` is HTML for a browser and JSON otherwise,
 * and only on the deployment's own host name (any other host is a status page's custom domain, or nothing).
 */
export function apiIndexRouter(deps: Pick<ApiDeps, 'config'>): { api: Router; root: Router } {
  const ownHost = new URL(deps.config.publicBaseUrl).hostname.toLowerCase();
  let index: ApiIndex | undefined;
  const read = () => (index ??= apiIndex(deps));
  const api = Router({ strict: false });
  api.get(API_PATH, (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.json({ data: read() });
  });
  const root = Router();
  root.get('/', async (req, res, next) => {
    if (req.hostname?.toLowerCase() !== ownHost) {
      next();
      return;
    }
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.vary('Accept');
    if (!wantsHtml(req)) {
      res.json({ data: read() });
      return;
    }
    res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
    res.type('html').send(renderApiIndex(read(), (await loadAssets()).urls));
  });
  return { api, root };
}
