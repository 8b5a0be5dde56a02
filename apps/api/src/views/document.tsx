import type { ComponentChildren } from 'preact';
import type { AssetUrls } from './assets.js';

export interface DocumentProps {
  /** The page's own title; " · Statusvane" is appended. */
  title: string;
  assets: AssetUrls;
  children: ComponentChildren;
  /** A class on <body> for page-wide layout variants ("auth" for the sign-in pages). */
  bodyClass?: string | undefined;
  /**
   * Redraw the page every this many seconds (the wall view): with JavaScript the enhancement script swaps the page's
   * <main> in place (client/live-refresh.ts); without it a meta refresh reloads the page. The meta refresh sits in
   * <noscript> so that it exists only where no script can do better (a timed reload a reader cannot stop is an axe
   * violation, WCAG 2.2.1).
   */
  refreshSeconds?: number | undefined;
}

/**
 * The shell of every console page: no inline script or style (the Content-Security-Policy allows only the hashed
 * files under /app/assets/), light and dark colour schemes, never indexed.
 */
export function Document({ title, assets, children, bodyClass, refreshSeconds }: DocumentProps) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <meta name="robots" content="noindex, nofollow" />
        {refreshSeconds && (
          <noscript>
            <meta http-equiv="refresh" content={String(refreshSeconds)} />
          </noscript>
        )}
        <title>{`${title} · Statusvane`}</title>
        {assets.icon && <link rel="icon" type="image/svg+xml" href={assets.icon} />}
        {assets.css && <link rel="stylesheet" href={assets.css} />}
        {assets.js && <script src={assets.js} defer />}
      </head>
      <body class={bodyClass} data-refresh={refreshSeconds ? String(refreshSeconds) : undefined}>
        {children}
      </body>
    </html>
  );
}
