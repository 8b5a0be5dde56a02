import type { StatusPageBranding } from '@statusvane/shared';
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
  /** The status page's branding, where it is served (its favicon, its colours from `<basePath>/brand.css`). */
  branding?: { basePath: string; brand: StatusPageBranding } | undefined;
  children: ComponentChildren;
}

/**
 * The shell of every public page (status page, subscribe, password, messages): the status page stylesheet and its
 * one optional script (times in the visitor's zone) from /app/assets (the CSP allows styles and scripts from this
 * origin only: no inline style or script), light and dark.
 */
export function PublicDocument({ title, assets, noindex, feedBase, branding, children }: PublicDocumentProps) {
  const colour = branding?.brand.brandColor;
  return (
    <Shell
      title={title}
      icon={branding?.brand.faviconUrl ?? assets.icon}
      stylesheet={assets.statusCss}
      script={assets.statusJs}
      robots={noindex ? 'noindex' : undefined}
      head={
        <>
          {branding && colour && <link rel="stylesheet" href={brandCssPath(branding.basePath, colour)} />}
          {feedBase !== undefined && (
            <>
              <link
                rel="alternate"
                type="application/atom+xml"
                title={`${title} (Atom)`}
                href={`${feedBase}/feed.atom`}
              />
              <link rel="alternate" type="application/rss+xml" title={`${title} (RSS)`} href={`${feedBase}/feed.rss`} />
            </>
          )}
        </>
      }
    >
      {children}
    </Shell>
  );
}

/** The page's brand stylesheet; the colour in the query makes a new colour a new address (cached a day). */
export const brandCssPath = (basePath: string, colour: string) => `${basePath}/brand.css?v=${colour.slice(1)}`;

/**
 * A time readable without JavaScript (`2026-05-01 10:00 UTC`, never broken across lines); the instant in `datetime`,
 * which the page's script (apps/api/client/status-page.ts) rewrites to the visitor's zone.
 */
export function Time({ iso }: { iso: string }) {
  return <time dateTime={iso}>{`${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`}</time>;
}
