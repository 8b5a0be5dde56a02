import type { ComponentChildren } from 'preact';
import type { AssetUrls } from '../assets.js';
import { Shell } from '../document.js';

export interface PublicDocumentProps {
  /** The whole title (public pages carry the page's name, not the product's). */
  title: string;
  assets: AssetUrls;
  /** Pages not to index: forms, messages, private pages. */
  noindex?: boolean;
  /** The page's base path: its feeds are announced for readers to find. */
  feedBase?: string;
  children: ComponentChildren;
}

/**
 * The shell of every public page (status page, subscribe, password, messages): the status page stylesheet from
 * /app/assets (the CSP allows styles from this origin only: no inline style, no script at all), light and dark.
 */
export function PublicDocument({ title, assets, noindex, feedBase, children }: PublicDocumentProps) {
  return (
    <Shell
      title={title}
      icon={assets.icon}
      stylesheet={assets.statusCss}
      robots={noindex ? 'noindex' : undefined}
      head={
        feedBase !== undefined && (
          <>
            <link
              rel="alternate"
              type="application/atom+xml"
              title={`${title} (Atom)`}
              href={`${feedBase}/feed.atom`}
            />
            <link rel="alternate" type="application/rss+xml" title={`${title} (RSS)`} href={`${feedBase}/feed.rss`} />
          </>
        )
      }
    >
      {children}
    </Shell>
  );
}

/** A time readable without JavaScript (`2026-05-01 10:00 UTC`, never broken across lines); the instant in `datetime`. */
export function Time({ iso }: { iso: string }) {
  return <time dateTime={iso}>{`${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`}</time>;
}
