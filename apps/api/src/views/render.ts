import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';

/**
 * A whole HTML page from its root element (a Document): preact renders it on the server, escaping every text and
 * attribute value, so user data can only reach the page as text.
 */
export function renderPage(root: VNode): string {
  return `<!doctype html>${renderToString(root)}`;
}
