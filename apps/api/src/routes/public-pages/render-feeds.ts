import type { PublicIncident, PublicPageData } from '../../services/status-pages/public-page.js';
import { incidentUrl } from '@statusvane/shared';
import { html, raw, type SafeHtml } from './html.js';
import {
  incidentStage,
  monitorIncidentText,
  statusTitle,
  utcText as utc,
} from '../../views/status-page/status-words.js';

/** Characters XML 1.0 forbids even escaped; user text could carry them, so they are dropped. */
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;
const xmlDocument = (body: SafeHtml) => `<?xml version="1.0" encoding="utf-8"?>\n${body.value.replace(NOT_XML, '')}`;

interface Entry {
  id: string;
  title: string;
  link: string;
  published: string;
  updated: string;
  /** An HTML fragment, escaped once more when placed in the feed. */
  content: string;
}

function incidentEntry(d: PublicPageData, i: PublicIncident): Entry {
  const times = [i.startedAt, i.acknowledgedAt, i.resolvedAt, ...i.updates.map((u) => u.createdAt)];
  const updated = times
    .filter((t): t is string => t !== null)
    .sort()
    .at(-1)!;
  const content = html`<p><strong>${incidentStage(i)}</strong> · ${i.impact} impact · started ${utc(i.startedAt)}${
    i.resolvedAt ? ` · resolved ${utc(i.resolvedAt)}` : ''
  }</p>
${i.components.length ? html`<p>Affects: ${i.components.map((c) => c.name).join(', ')}</p>` : null}
${monitorIncidentText(i) ? html`<p>${monitorIncidentText(i)}</p>` : null}
${[...i.updates].reverse().map((u) => html`<p><strong>${u.status}</strong> (${utc(u.createdAt)}): ${u.message}</p>`)}`;
  return {
    id: `urn:uuid:${i.id}`,
    title: i.status === 'resolved' ? `Resolved: ${i.title}` : i.title,
    link: incidentUrl(d.page.url, i.id),
    published: i.startedAt,
    updated,
    content: content.value,
  };
}

function entries(d: PublicPageData): Entry[] {
  const list: Entry[] = [...d.incidents, ...d.pastIncidents].map((i) => incidentEntry(d, i));
  for (const m of d.maintenance) {
    const what =
      m.status === 'cancelled'
        ? 'Cancelled maintenance'
        : m.status === 'in_progress'
          ? 'Maintenance in progress'
          : 'Scheduled maintenance';
    list.push({
      id: `urn:uuid:${m.id}`,
      title: `${what}: ${m.title}`,
      link: `${d.page.url}#maintenance-${m.id}`,
      // Announced when created, changed when edited or called off: never its (future) start.
      published: m.createdAt,
      updated: m.updatedAt,
      content: html`<p>${utc(m.startsAt)} – ${utc(m.endsAt)}</p>${m.body ? html`<p>${m.body}</p>` : null}${
        m.components.length ? html`<p>Affects: ${m.components.map((c) => c.name).join(', ')}</p>` : null
      }`.value,
    });
  }
  return list.sort((a, b) => b.updated.localeCompare(a.updated) || a.id.localeCompare(b.id));
}

/** When the feed last changed: its newest entry, never later than now; with no entry, now. */
const feedUpdated = (d: PublicPageData, list: Entry[]) =>
  list[0] && list[0].updated < d.generatedAt ? list[0].updated : d.generatedAt;

/** Atom 1.0 (RFC 4287): one entry per incident (open, or resolved in the last 14 days) and announced window. */
export function renderAtom(d: PublicPageData, selfUrl: string): string {
  const list = entries(d);
  return xmlDocument(html`<feed xmlns="http://www.w3.org/2005/Atom">
<id>${d.page.url}</id>
<title>${statusTitle(d.page.name)}</title>
<updated>${feedUpdated(d, list)}</updated>
<author><name>${d.page.name}</name></author>
<link rel="self" type="application/atom+xml" href="${selfUrl}"/>
<link rel="alternate" type="text/html" href="${d.page.url}"/>
${list.map(
  (e) => html`<entry>
<id>${e.id}</id>
<title>${e.title}</title>
<link rel="alternate" type="text/html" href="${e.link}"/>
<published>${e.published}</published>
<updated>${e.updated}</updated>
<content type="html">${e.content}</content>
</entry>
`,
)}</feed>
`);
}

/** RSS 2.0, the same entries; dates in RFC 822 form. */
export function renderRss(d: PublicPageData, selfUrl: string): string {
  const list = entries(d);
  const rfc822 = (iso: string) => new Date(iso).toUTCString();
  return xmlDocument(html`<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">
<channel>
<title>${statusTitle(d.page.name)}</title>
<link>${d.page.url}</link>
<description>${raw('Incidents and maintenance of ')}${d.page.name}</description>
<atom:link href="${selfUrl}" rel="self" type="application/rss+xml"/>
<lastBuildDate>${rfc822(feedUpdated(d, list))}</lastBuildDate>
${list.map(
  (e) => html`<item>
<title>${e.title}</title>
<link>${e.link}</link>
<guid isPermaLink="false">${e.id}</guid>
<pubDate>${rfc822(e.updated)}</pubDate>
<description>${e.content}</description>
</item>
`,
)}</channel>
</rss>
`);
}
