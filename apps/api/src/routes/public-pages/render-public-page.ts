import { createHash } from 'node:crypto';
import type { ComponentState, PageSummary, PublicPageData } from '../../services/status-pages/public-page.js';
import type { UptimeDay } from '../../services/status-pages/uptime.js';
import { html, raw, type SafeHtml } from './html.js';

// Server-rendered, no JavaScript, no outside assets: one inline stylesheet, allowed by its hash in the CSP
// (so no 'unsafe-inline'), and classes only (style attributes would need 'unsafe-hashes').
const CSS = `
:root{color-scheme:light dark;--bg:#f5f6f8;--card:#fff;--text:#1c2230;--muted:#5d6778;--line:#e2e5ea;--up:#2e9e68;--deg:#d99a1c;--part:#e8762c;--down:#d14343;--maint:#3a76d8;--none:#cdd2d9;--paused:#8a93a3}
@media (prefers-color-scheme:dark){:root{--bg:#0f1217;--card:#171b22;--text:#e5e8ee;--muted:#9aa3b3;--line:#272d38;--none:#3a414d}}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;background:var(--bg);color:var(--text)}
main{max-width:860px;margin:0 auto;padding:32px 16px 48px}
main.narrow{max-width:420px;padding-top:12vh}
h1{font-size:26px;line-height:1.2;margin:0 0 18px;overflow-wrap:anywhere}
h2{font-size:17px;margin:30px 0 10px}
h3{font-size:15px;margin:0 0 4px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
.banner{padding:14px 18px;border-radius:8px;color:#fff;font-weight:600;font-size:17px}
.banner.operational{background:var(--up)}.banner.degraded{background:var(--deg)}.banner.outage{background:var(--down)}.banner.maintenance{background:var(--maint)}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:14px 18px;margin:10px 0}
.notice{border-left:4px solid var(--maint)}.notice.incident{border-left-color:var(--down)}
.notice h3{color:var(--text);text-transform:none;letter-spacing:0;font-size:16px}
.notice.cancelled{border-left-color:var(--paused)}
.tag{display:inline-block;font-size:12px;font-weight:600;text-transform:uppercase;letter-spacing:.04em;padding:1px 6px;border-radius:4px;background:var(--paused);color:#fff;vertical-align:2px}
.body{white-space:pre-wrap;overflow-wrap:anywhere;margin:6px 0}
.muted{color:var(--muted);font-size:13px}
.component{padding:12px 0;border-top:1px solid var(--line)}
.component:first-of-type{border-top:0}
.row{display:flex;justify-content:space-between;align-items:baseline;gap:12px}
.name{font-weight:600;overflow-wrap:anywhere}
.state{font-size:13px;font-weight:600;white-space:nowrap}
.state.up{color:var(--up)}.state.degraded{color:var(--deg)}.state.down{color:var(--down)}.state.maintenance{color:var(--maint)}.state.paused,.state.pending{color:var(--paused)}
.bars{display:flex;gap:2px;height:30px;margin-top:8px}
.bar{flex:1 1 0;min-width:2px;border-radius:2px;background:var(--none)}
.bar.b-up{background:var(--up)}.bar.b-deg{background:var(--deg)}.bar.b-part{background:var(--part)}.bar.b-down{background:var(--down)}
.legend{display:flex;justify-content:space-between;gap:8px;margin-top:4px}
label{display:block;font-weight:600;margin:12px 0 6px}
input{width:100%;font:inherit;padding:9px 10px;border:1px solid var(--line);border-radius:6px;background:var(--bg);color:var(--text)}
button{margin-top:14px;font:inherit;font-weight:600;padding:9px 16px;border:0;border-radius:6px;background:var(--maint);color:#fff;cursor:pointer}
.error{color:var(--down);font-weight:600}
footer{margin-top:32px;text-align:center}
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

function shell(title: string, body: SafeHtml, opts: { refreshSeconds?: number; noindex?: boolean } = {}): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
${opts.refreshSeconds ? html`<meta http-equiv="refresh" content="${opts.refreshSeconds}">` : null}
${opts.noindex ? raw('<meta name="robots" content="noindex">') : null}
<title>${title}</title>
<link rel="icon" href="data:,">
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

function barClass(d: UptimeDay): string {
  if (d.percent === null) return 'b-none';
  if (d.downCount === 0) return d.degradedCount === 0 ? 'b-up' : 'b-deg';
  return d.percent >= 99 ? 'b-part' : 'b-down';
}

function barTitle(d: UptimeDay): string {
  if (d.percent === null) return `${d.date}: no data`;
  const failed = d.downCount === 0 ? 'no failed checks' : `${d.downCount} of ${d.total} checks failed`;
  return `${d.date}: ${d.percent}% uptime, ${failed}${d.degradedCount ? `, ${d.degradedCount} slow` : ''}`;
}

function uptimeBars(series: PublicPageData['uptime']['components'][number] | undefined, days: number): SafeHtml {
  if (!series) return html``;
  const pct = series.percent === null ? 'No data' : `${series.percent}% uptime`;
  return html`<div class="bars" role="img" aria-label="${days}-day uptime: ${pct}">${series.days.map(
    (d) => html`<span class="bar ${barClass(d)}" title="${barTitle(d)}"></span>`,
  )}</div>
<div class="legend muted"><span>${days} days ago</span><span class="uptime-pct">${pct}</span><span>Today</span></div>`;
}

function affected(components: Array<{ name: string }>, emptyMeans: string | null): SafeHtml {
  if (components.length === 0) return emptyMeans ? html`<div class="muted">Affects: ${emptyMeans}</div>` : html``;
  return html`<div class="muted">Affects: ${components.map((c) => c.name).join(', ')}</div>`;
}

/** The status page itself. Every piece of user text goes through `html`, which escapes it. */
export function renderStatusPage(d: PublicPageData): string {
  const byId = new Map(d.components.map((c) => [c.id, c]));
  const uptime = new Map(d.uptime.components.map((u) => [u.componentId, u]));
  const inProgress = d.maintenance.filter((m) => m.status === 'in_progress');
  const upcoming = d.maintenance.filter((m) => m.status === 'scheduled');
  const cancelled = d.maintenance.filter((m) => m.status === 'cancelled');

  const incidents = d.incidents.length
    ? html`<section aria-labelledby="incidents"><h2 id="incidents">Active incidents</h2>${d.incidents.map(
        (i) => html`<article class="card notice incident" data-incident-id="${i.id}">
<h3>${i.title}</h3>
<div class="muted">${i.status === 'acknowledged' ? 'Identified' : 'Investigating'} · started ${time(i.startedAt)}</div>
${affected(i.components, null)}
</article>`,
      )}</section>`
    : null;

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

  const sections = d.sections.map(
    (s) => html`<section class="card components">
${s.name !== null ? html`<h3>${s.name}</h3>` : null}
${s.componentIds.map((id) => {
  const c = byId.get(id)!;
  return html`<div class="component" data-component-id="${c.id}">
<div class="row"><span class="name">${c.name}</span><span class="state ${c.state}">${STATE_TEXT[c.state]}${
    c.maintenanceUntil ? html` until ${time(c.maintenanceUntil)}` : null
  }</span></div>
${uptimeBars(uptime.get(c.id), d.uptime.days)}
</div>`;
})}
</section>`,
  );

  const body = html`<main>
<header><h1>${d.page.name}</h1></header>
<div class="banner ${d.summary}" role="status">${SUMMARY_TEXT[d.summary]}</div>
${incidents}
${inProgress.length ? html`<section aria-labelledby="maint-now"><h2 id="maint-now">Maintenance in progress</h2>${maintenanceCards(inProgress)}</section>` : null}
${upcoming.length ? html`<section aria-labelledby="maint-next"><h2 id="maint-next">Upcoming maintenance</h2>${maintenanceCards(upcoming)}</section>` : null}
${cancelled.length ? html`<section aria-labelledby="maint-off"><h2 id="maint-off">Cancelled maintenance</h2>${maintenanceCards(cancelled)}</section>` : null}
<h2>Components</h2>
${d.components.length ? sections : html`<div class="card muted">No components yet.</div>`}
<footer class="muted">Updated ${time(d.generatedAt)}. Uptime bars: one per UTC day, grey where there is no data.</footer>
</main>`;
  return shell(`${d.page.name} status`, body, { refreshSeconds: 60 });
}

/** The password form of a protected page; `failed` adds the "wrong password" message. */
export function renderPasswordForm(page: { name: string; slug: string }, failed: boolean): string {
  const body = html`<main class="narrow">
<h1>${page.name}</h1>
<div class="card">
<p>This status page is private. Enter its password to view it.</p>
${failed ? html`<p class="error" role="alert">That password is not right. Try again.</p>` : null}
<form method="post" action="/status/${page.slug}/login">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required maxlength="200" autofocus>
<button type="submit">View status</button>
</form>
</div>
</main>`;
  return shell(`${page.name} status`, body, { noindex: true });
}

/** A plain page for 404 and for errors, with the same look and policy. */
export function renderMessage(title: string, message: string): string {
  return shell(title, html`<main class="narrow"><h1>${title}</h1><div class="card"><p>${message}</p></div></main>`, {
    noindex: true,
  });
}
