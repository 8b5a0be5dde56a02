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
 * The one HTML shell of every page (console, status page, docs): no inline script or style (each page's
 * Content-Security-Policy allows only the hashed files under /app/assets/), light and dark colour schemes.
 */
export function Shell(props: {
  title: string;
  icon: string;
  stylesheet: string;
  script?: string | undefined;
  /** `noindex` and the like; absent: indexable. */
  robots?: string | undefined;
  /** More of the head: feed links. */
  head?: ComponentChildren;
  bodyClass?: string | undefined;
  /** DocumentProps.refreshSeconds. */
  refreshSeconds?: number | undefined;
  children: ComponentChildren;
}) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        {props.robots && <meta name="robots" content={props.robots} />}
        {props.refreshSeconds && (
          <noscript>
            <meta http-equiv="refresh" content={String(props.refreshSeconds)} />
          </noscript>
        )}
        <title>{props.title}</title>
        {props.icon && (
          // A status page's own favicon may be of any image type: the browser sniffs it.
          <link rel="icon" type={props.icon.endsWith('.svg') ? 'image/svg+xml' : undefined} href={props.icon} />
        )}
        {props.head}
        {props.stylesheet && <link rel="stylesheet" href={props.stylesheet} />}
        {props.script && <script src={props.script} defer />}
      </head>
      <body class={props.bodyClass} data-refresh={props.refreshSeconds ? String(props.refreshSeconds) : undefined}>
        {props.children}
      </body>
    </html>
  );
}

/** The shell of every console page: never indexed. */
export function Document({ title, assets, children, bodyClass, refreshSeconds }: DocumentProps) {
  return (
    <Shell
      title={`${title} · Statusvane`}
      icon={assets.icon}
      stylesheet={assets.css}
      script={assets.js}
      robots="noindex, nofollow"
      bodyClass={bodyClass}
      refreshSeconds={refreshSeconds}
    >
      {children}
    </Shell>
  );
}
