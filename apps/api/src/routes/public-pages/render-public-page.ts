import { createHash } from 'node:crypto';
import { INCIDENT_UPDATE_LABELS } from '@statusvane/shared';
import {
  PAST_INCIDENT_DAYS,
  type ComponentState,
  type PageSummary,
  type PublicIncident,
  type PublicIncidentUpdate,
  type PublicPageData,
} from '../../services/status-pages/public-page.js';
import type { UptimeDay } from '../../services/status-pages/uptime.js';
import { html, raw, type SafeHtml } from './html.js';

// Server-rendered, no JavaScript, no outside assets: one inline stylesheet, allowed by its hash in the CSP
// (so no 'unsafe-inline'), and classes only (style attributes would need 'unsafe-hashes').
const CSS = `
:root{color-scheme:light dark;--bg:#f5f6f8;--card:#fff;--text:#1c2230;--muted:#5a6475;--line:#e2e5ea;--up:#1e7a4a;--deg:#8a5a00;--down:#b42318;--maint:#1d5fc4;--paused:#5a6475;--f-up:#2e9e68;--f-deg:#d99a1c;--f-part:#e8762c;--f-down:#d14343;--f-none:#cdd2d9}
@media (prefers-color-scheme:dark){:root{--bg:#0f1217;--card:#171b22;--text:#e5e8ee;--muted:#a3acbb;--line:#272d38;--up:#5fd39b;--deg:#f0b54a;--down:#ff8a80;--maint:#8fb5f5;--paused:#a3acbb;--f-none:#3a414d}}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;background:var(--bg);color:var(--text)}
.wrap{max-width:860px;margin:0 auto;padding:0 16px}
header.wrap{padding-top:32px}
main{padding-bottom:16px}
main.narrow{max-width:420px;margin:0 auto;padding:12vh 16px 48px}
h1{font-size:26px;line-height:1.2;margin:0 0 18px;overflow-wrap:anywhere}
h2{font-size:17px;margin:30px 0 10px}
h3{font-size:15px;margin:0 0 4px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
a{color:var(--maint)}
.banner{padding:14px 18px;border-radius:8px;color:#fff;font-weight:600;font-size:17px}
.banner.operational{background:#1e7a4a}.banner.degraded{background:#8a5a00}.banner.outage{background:#b42318}.banner.maintenance{background:#1d5fc4}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:14px 18px;margin:10px 0;min-width:0}
.notice{border-left:4px solid var(--maint)}.notice.incident{border-left-color:var(--down)}.notice.resolved{border-left-color:var(--up)}
.notice h3{color:var(--text);text-transform:none;letter-spacing:0;font-size:16px;overflow-wrap:anywhere}
.notice.cancelled{border-left-color:var(--paused)}
.tag{display:inline-block;font-size:12px;font-weight:600;text-transform:uppercase;letter-spacing:.04em;padding:1px 6px;border-radius:4px;background:#5a6475;color:#fff;vertical-align:2px}
.body{white-space:pre-wrap;overflow-wrap:anywhere;margin:6px 0}
.muted{color:var(--muted);font-size:13px}
.timeline{list-style:none;margin:10px 0 0;padding:0}
.timeline li{border-top:1px solid var(--line);padding:8px 0 2px}
.timeline .body{margin:2px 0}
details{margin-top:8px}summary{cursor:pointer;color:var(--muted);font-size:13px}
.component{padding:12px 0;border-top:1px solid var(--line)}
.component:first-of-type{border-top:0}
.row{display:flex;justify-content:space-between;align-items:baseline;gap:12px;flex-wrap:wrap}
.name{font-weight:600;overflow-wrap:anywhere;min-width:0}
.state{font-size:13px;font-weight:600}
.state.up{color:var(--up)}.state.degraded{color:var(--deg)}.state.down{color:var(--down)}.state.maintenance{color:var(--maint)}.state.paused,.state.pending{color:var(--paused)}
.bars{display:flex;gap:2px;height:30px;margin-top:8px;overflow:hidden}
.bar{flex:1 1 0;min-width:0;border-radius:1px;background:var(--f-none)}
.bar.b-up{background:var(--f-up)}.bar.b-deg{background:var(--f-deg)}.bar.b-part{background:var(--f-part)}.bar.b-down{background:var(--f-down)}
.legend{display:flex;justify-content:space-between;gap:8px;margin-top:4px}
.d60,.d30{display:none}
@media (max-width:760px){.bar:nth-child(-n+30){display:none}.d90{display:none}.d60{display:inline}}
@media (max-width:560px){.bar:nth-child(-n+60){display:none}.d60{display:none}.d30{display:inline}}
.key{display:flex;flex-wrap:wrap;gap:6px 14px;margin:8px 0 0;padding:0;list-style:none}
.key li{display:flex;align-items:center;gap:6px}
.swatch{display:inline-block;width:10px;height:14px;border-radius:1px;background:var(--f-none)}
.swatch.b-up{background:var(--f-up)}.swatch.b-deg{background:var(--f-deg)}.swatch.b-part{background:var(--f-part)}.swatch.b-down{background:var(--f-down)}
label{display:block;font-weight:600;margin:12px 0 6px}
input{width:100%;font:inherit;padding:9px 10px;border:1px solid var(--muted);border-radius:6px;background:var(--bg);color:var(--text)}
button{margin-top:14px;font:inherit;font-weight:600;padding:9px 16px;border:0;border-radius:6px;background:#1d5fc4;color:#fff;cursor:pointer}
.error{color:var(--down);font-weight:600}
footer{margin-top:24px;padding-bottom:48px;text-align:center}
footer p{margin:6px 0}
`.trim();

const CSS_HASH = createHash('sha256').update(CSS).digest('base64');

/**
 * Nothing may load from anywhere (default-src 'none'); the one stylesheet is allowed by hash; forms post only to
 * this origin; the page cannot be framed. The empty data: icon stops browsers asking for /favicon.ico.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `style-src 'sha256-${CSS_HASH}'`,
  'img-src data:',
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

function shell(title: string, body: SafeHtml, opts: { noindex?: boolean; feedBase?: string } = {}): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
${opts.noindex ? raw('<meta name="robots" content="noindex">') : null}
<title>${title}</title>
<link rel="icon" href="data:,">
${
  opts.feedBase !== undefined
    ? html`<link rel="alternate" type="application/atom+xml" title="${title} (Atom)" href="${opts.feedBase}/feed.atom">
<link rel="alternate" type="application/rss+xml" title="${title} (RSS)" href="${opts.feedBase}/feed.rss">`
    : null
}
<style>${raw(CSS)}</style>
</head>
<body>
${body}
</body>
</html>
`.value;
}

const SUMMARY_TEXT: Record<PageSummary, string> = {
  operational: 'All systems operational',
  degraded: 'Some systems are experiencing problems',
  outage: 'Service disruption',
  maintenance: 'Maintenance in progress',
};

const STATE_TEXT: Record<ComponentState, string> = {
  up: 'Operational',
  degraded: 'Degraded performance',
  down: 'Outage',
  paused: 'Monitoring paused',
  maintenance: 'Under maintenance',
  pending: 'No data yet',
};

/** `2026-05-01 10:00 UTC`: readable without JavaScript; the machine-readable instant sits in `datetime`. */
function time(iso: string): SafeHtml {
  return html`<time datetime="${iso}">${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC</time>`;
}

/** A day's colour from its uptime under the workspace policy: full (degraded or not), 99% or more, less, no data. */
function barClass(d: UptimeDay): string {
  if (d.percent === null) return 'b-none';
  if (d.percent === 100) return d.degradedSeconds === 0 ? 'b-up' : 'b-deg';
  return d.percent >= 99 ? 'b-part' : 'b-down';
}

/** `1 h 05 min`, `3 min 20 s`, `40 s`. */
function duration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  if (h) return `${h} h ${String(m).padStart(2, '0')} min`;
  return m ? `${m} min ${String(seconds % 60).padStart(2, '0')} s` : `${seconds} s`;
}

function barTitle(d: UptimeDay): string {
  if (d.percent === null) return `${d.date}: no data`;
  const parts = [
    d.downSeconds ? `${duration(d.downSeconds)} down` : 'no down time',
    ...(d.degradedSeconds ? [`${duration(d.degradedSeconds)} degraded`] : []),
    ...(d.maintenanceSeconds ? [`${duration(d.maintenanceSeconds)} in maintenance`] : []),
  ];
  return `${d.date}: ${d.percent}% uptime, ${parts.join(', ')}`;
}

const BAR_KEY: Array<[string, string]> = [
  ['b-up', 'Fully up'],
  ['b-deg', 'Degraded, fully up'],
  ['b-part', 'Partly down (99% or more up)'],
  ['b-down', 'Down (under 99% up)'],
  ['b-none', 'No data'],
];

/** The days a text reader is told about: those under 100%, worst first, at most this many. */
const WORST_DAYS = 5;

function uptimeBars(
  series: PublicPageData['uptime']['components'][number] | undefined,
  days: number,
  policy: PublicPageData['uptime']['policy'],
): SafeHtml {
  if (!series) return html``;
  const pct = series.percent === null ? 'No data' : `${series.percent}% uptime`;
  // The colours are also told in words: the summary and the worst days in the label, each day in its tooltip.
  const bad = series.days
    .filter((d) => d.percent !== null && d.percent < 100)
    .sort((x, y) => x.percent! - y.percent! || x.date.localeCompare(y.date))
    .slice(0, WORST_DAYS);
  const label =
    `Uptime over the last ${days} days: ${pct}. ` +
    (bad.length
      ? `Days under 100%: ${bad.map((d) => `${d.date} ${d.percent}%`).join(', ')}.`
      : series.percent === null
        ? ''
        : 'No day under 100%.');
  const counted = `Maintenance ${policy.maintenance}, degraded counted ${policy.degraded}, no data ${policy.noData} (accounting policy version ${policy.version})`;
  return html`<div class="bars" role="img" aria-label="${label.trim()}">${series.days.map(
    (d) => html`<span class="bar ${barClass(d)}" title="${barTitle(d)}"></span>`,
  )}</div>
<div class="legend muted" aria-hidden="true"><span><span class="d90">${days} days ago</span><span class="d60">60 days ago</span><span class="d30">30 days ago</span></span><span class="uptime-pct" title="${counted}">${pct}</span><span>Today</span></div>`;
}

function affected(components: Array<{ name: string }>, emptyMeans: string | null): SafeHtml {
  if (components.length === 0) return emptyMeans ? html`<div class="muted">Affects: ${emptyMeans}</div>` : html``;
  return html`<div class="muted">Affects: ${components.map((c) => c.name).join(', ')}</div>`;
}

const IMPACT_TEXT: Record<PublicIncident['impact'], string> = {
  none: 'No impact',
  minor: 'Minor impact',
  major: 'Major impact',
  critical: 'Critical impact',
};

/** Where an incident stands, in words: its latest update's stage, else what the incident's status implies. */
export function incidentStage(i: PublicIncident): string {
  const last = i.updates.at(-1);
  if (last) return INCIDENT_UPDATE_LABELS[last.status];
  return i.status === 'resolved' ? 'Resolved' : i.status === 'acknowledged' ? 'Identified' : 'Investigating';
}

/** Updates newest first, as status pages show them: the latest word is read first. */
function timeline(updates: PublicIncidentUpdate[]): SafeHtml {
  if (!updates.length) return html``;
  return html`<ol class="timeline" reversed>${[...updates].reverse().map(
    (u) => html`<li><strong>${INCIDENT_UPDATE_LABELS[u.status]}</strong> <span class="muted">${time(u.createdAt)}</span>
<p class="body">${u.message}</p></li>`,
  )}</ol>`;
}

function incidentCard(i: PublicIncident): SafeHtml {
  const resolved = i.status === 'resolved';
  return html`<article class="card notice incident${resolved ? ' resolved' : ''}" data-incident-id="${i.id}">
<h3>${i.title}</h3>
<div class="muted">${incidentStage(i)} · ${IMPACT_TEXT[i.impact]} · started ${time(i.startedAt)}${
    i.resolvedAt ? html` · resolved ${time(i.resolvedAt)}` : null
  }</div>
${affected(i.components, 'all components')}
${
  resolved && i.updates.length
    ? html`<details><summary>${i.updates.length} update${i.updates.length === 1 ? '' : 's'}</summary>${timeline(i.updates)}</details>`
    : timeline(i.updates)
}
</article>`;
}

export interface PageLinks {
  /** The page's path on this host: `/status/<slug>`, or '' when served at the root of its custom domain. */
  basePath: string;
}

/** The status page itself. Every piece of user text goes through `html`, which escapes it. */
export function renderStatusPage(d: PublicPageData, links: PageLinks = { basePath: `/status/${d.page.slug}` }): string {
  const base = links.basePath;
  const byId = new Map(d.components.map((c) => [c.id, c]));
  const uptime = new Map(d.uptime.components.map((u) => [u.componentId, u]));
  const inProgress = d.maintenance.filter((m) => m.status === 'in_progress');
  const upcoming = d.maintenance.filter((m) => m.status === 'scheduled');
  const cancelled = d.maintenance.filter((m) => m.status === 'cancelled');

  const maintenanceCards = (list: PublicPageData['maintenance']) =>
    list.map(
      (
        m,
      ) => html`<article class="card notice maintenance${m.status === 'cancelled' ? ' cancelled' : ''}" data-maintenance-id="${m.id}">
<h3>${m.status === 'cancelled' ? html`<span class="tag">Cancelled</span> ` : null}${m.title}</h3>
<div class="muted">${m.status === 'cancelled' ? 'Was planned for ' : null}${time(m.startsAt)} – ${time(m.endsAt)}${
        m.cancelledAt ? html` · called off ${time(m.cancelledAt)}` : null
      }</div>
${m.body ? html`<p class="body">${m.body}</p>` : null}
${affected(m.components, 'all components')}
</article>`,
    );
  const block = (id: string, title: string, items: SafeHtml[]) =>
    items.length ? html`<section aria-labelledby="${id}"><h2 id="${id}">${title}</h2>${items}</section>` : null;

  const sections = d.sections.map(
    (
      s,
      n,
    ) => html`<section class="card components"${s.name !== null ? html` aria-labelledby="sec-${n}"` : html` aria-label="Components"`}>
${s.name !== null ? html`<h3 id="sec-${n}">${s.name}</h3>` : null}
${s.componentIds.map((id) => {
  const c = byId.get(id)!;
  return html`<div class="component" data-component-id="${c.id}">
<div class="row"><span class="name">${c.name}</span><span class="state ${c.state}">${STATE_TEXT[c.state]}${
    c.maintenanceUntil ? html` until ${time(c.maintenanceUntil)}` : null
  }</span></div>
${uptimeBars(uptime.get(c.id), d.uptime.days, d.uptime.policy)}
</div>`;
})}
</section>`,
  );

  const body = html`<header class="wrap">
<h1>${d.page.name}</h1>
<div class="banner ${d.summary}" role="status">${SUMMARY_TEXT[d.summary]}</div>
</header>
<main class="wrap">
${block('incidents', 'Active incidents', d.incidents.map(incidentCard))}
${block('maint-now', 'Maintenance in progress', maintenanceCards(inProgress))}
${block('maint-next', 'Upcoming maintenance', maintenanceCards(upcoming))}
${block('maint-off', 'Cancelled maintenance', maintenanceCards(cancelled))}
<section aria-labelledby="components"><h2 id="components">Components</h2>
${d.components.length ? sections : html`<div class="card muted">No components yet.</div>`}
<ul class="key muted" aria-label="What the bar colours mean">${BAR_KEY.map(
    ([cls, text]) => html`<li><span class="swatch ${cls}"></span>${text}</li>`,
  )}</ul>
</section>
<section aria-labelledby="past"><h2 id="past">Past incidents</h2>
${d.pastIncidents.length ? d.pastIncidents.map(incidentCard) : html`<p class="card muted">No incidents in the last ${PAST_INCIDENT_DAYS} days.</p>`}
</section>
<section aria-labelledby="subscribe"><h2 id="subscribe">Get updates</h2>
<div class="card">
<form method="post" action="${base}/subscribe">
<label for="sub-email">Email address</label>
<input id="sub-email" name="email" type="email" autocomplete="email" required maxlength="320">
<button type="submit">Subscribe</button>
</form>
<p class="muted">Or follow the <a href="${base}/feed.atom">Atom</a> or <a href="${base}/feed.rss">RSS</a> feed.</p>
</div>
</section>
</main>
<footer class="wrap muted">
<p>Updated ${time(d.generatedAt)}. Uptime bars: one per UTC day, fewer days on narrow screens.</p>
</footer>`;
  return shell(`${d.page.name} status`, body, { feedBase: base });
}

/** The password form of a protected page; `failed` adds the "wrong password" message. */
export function renderPasswordForm(page: { name: string; slug: string }, failed: boolean, basePath: string): string {
  const body = html`<main class="narrow">
<h1>${page.name}</h1>
<div class="card">
<p>This status page is private. Enter its password to view it.</p>
${failed ? html`<p class="error" role="alert">That password is not right. Try again.</p>` : null}
<form method="post" action="${basePath}/login">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="200" autofocus>
<button type="submit">View status</button>
</form>
</div>
</main>`;
  return shell(`${page.name} status`, body, { noindex: true });
}

/** After POST /subscribe from the form: the same words whatever was known; a webhook's secret shown once. */
export function renderSubscribed(page: { name: string }, basePath: string, webhookSecret: string | null): string {
  const body = webhookSecret
    ? html`<p>The webhook is subscribed. Deliveries are signed with this secret; it is shown only now:</p>
<p><code class="body">${webhookSecret}</code></p>`
    : html`<p>If this address can receive mail, a confirmation link is on its way. Nothing is sent until it is used.</p>`;
  return shell(
    `${page.name} status`,
    html`<main class="narrow"><h1>Almost there</h1><div class="card">${body}<p><a href="${basePath || '/'}">Back to the status page</a></p></div></main>`,
    { noindex: true },
  );
}

/** The page behind a mail link: a button to confirm or unsubscribe (GET), or the result (after the POST). */
export function renderLinkAction(
  page: { name: string },
  action: string,
  kind: 'confirm' | 'unsubscribe',
  done: boolean,
): string {
  const title = kind === 'confirm' ? 'Confirm your subscription' : 'Unsubscribe';
  const body = done
    ? html`<p>${kind === 'confirm' ? `You will be told of incidents and maintenance of ${page.name}.` : `You will not hear from ${page.name} status again.`}</p>`
    : html`<p>${kind === 'confirm' ? `Get incident and maintenance updates of ${page.name} by email.` : `Stop updates of ${page.name} to this address.`}</p>
<form method="post" action="${action}"><button type="submit">${kind === 'confirm' ? 'Confirm' : 'Unsubscribe'}</button></form>`;
  return shell(
    title,
    html`<main class="narrow"><h1>${done ? (kind === 'confirm' ? 'Subscribed' : 'Unsubscribed') : title}</h1><div class="card">${body}</div></main>`,
    {
      noindex: true,
    },
  );
}

/** A plain page for 404 and for errors, with the same look and policy. */
export function renderMessage(title: string, message: string): string {
  return shell(title, html`<main class="narrow"><h1>${title}</h1><div class="card"><p>${message}</p></div></main>`, {
    noindex: true,
  });
}
