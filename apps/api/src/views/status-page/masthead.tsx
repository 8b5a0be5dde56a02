import type { StatusPageBranding } from '@statusvane/shared';
import type { ComponentChildren } from 'preact';

/** What the top of a page shows: the page's name and branding, and where it lives on this host. */
export interface MastheadPage {
  name: string;
  /** The page's path on this host: `/status/<slug>`, or '' at the root of its custom domain. */
  basePath: string;
  brand: StatusPageBranding;
}

/** The website's host name, shown as the link back (`acme.com` for `https://www.acme.com/`). */
const siteName = (url: string) => new URL(url).hostname.replace(/^www\./, '');

/**
 * The top of every page of a status page (the page itself, an incident, the history): the logo (its alt text the
 * page's name) or the name, linking to the company's website when it has one, else home; the link back to that
 * website; the history and the subscribe button.
 */
export function Masthead(props: {
  page: MastheadPage;
  /** On the main page the name is its heading; below it, a link. */
  home: boolean;
  children?: ComponentChildren;
}) {
  const { name, basePath, brand } = props.page;
  const home = basePath || '/';
  const identity = brand.logoUrl ? <img class="logo" src={brand.logoUrl} alt={name} /> : name;
  const target = brand.logoUrl && brand.websiteUrl ? brand.websiteUrl : home;
  const link = (
    <a class="page-name" href={target}>
      {identity}
    </a>
  );
  return (
    <header class="wrap masthead">
      <div class="masthead-row">
        {props.home ? <h1>{brand.logoUrl ? link : name}</h1> : link}
        <nav class="masthead-links" aria-label="Status page">
          {brand.websiteUrl && <a href={brand.websiteUrl}>{siteName(brand.websiteUrl)}</a>}
          <a href={`${basePath}/history`}>History</a>
          <a class="button subscribe-button" href={`${basePath}/subscribe`}>
            Subscribe
          </a>
        </nav>
      </div>
      {props.children}
    </header>
  );
}
