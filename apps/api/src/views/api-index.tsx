import type { AssetUrls } from './assets.js';
import { renderPage } from './render.js';
import { PublicDocument } from './status-page/public-document.js';

/** Where a visitor of the API's root goes next. */
export interface ApiIndex {
  name: string;
  version: string;
  links: { docs: string; openapi: string; status: string; api: string };
}

/** The API root for a browser: what this is and where to read about it, no token needed. */
export function renderApiIndex(index: ApiIndex, assets: AssetUrls): string {
  return renderPage(
    <PublicDocument title={index.name} assets={assets}>
      <main class="narrow">
        <h1>{index.name}</h1>
        <div class="card">
          <p>
            Version {index.version}. Every operation lives under <code>{index.links.api}</code> and takes a bearer
            token.
          </p>
          <ul>
            <li>
              <a href={index.links.docs}>API reference</a>
            </li>
            <li>
              <a href={index.links.openapi}>OpenAPI document (JSON)</a>
            </li>
            <li>
              <a href={index.links.status}>Service status</a>
            </li>
          </ul>
        </div>
      </main>
    </PublicDocument>,
  );
}
