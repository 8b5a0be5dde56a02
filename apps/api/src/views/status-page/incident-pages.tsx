import type { PublicHistory, Month } from '../../services/status-pages/public-history.js';
import type { PublicIncident } from '../../services/status-pages/public-page.js';
import { IMPACT_STATUS, PUBLIC_STATUS_LABELS } from '../../services/status-pages/public-status.js';
import type { AssetUrls } from '../assets.js';
import { renderPage } from '../render.js';
import { Masthead, type MastheadPage } from './masthead.js';
import { PublicDocument, Time } from './public-document.js';
import { Block, incidentPath, MaintenanceCard, Timeline } from './status-page.js';
import { duration, IMPACT_TEXT, incidentStage, monitorIncidentText, statusTitle } from './status-words.js';

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** `November 2026`. */
export const monthName = (m: Month) => `${MONTHS[Number(m.slice(5, 7)) - 1]} ${m.slice(0, 4)}`;

/** How long it lasted, or has lasted so far. */
function lasted(i: PublicIncident, now: string): string {
  const end = i.resolvedAt ?? now;
  const text = duration((Date.parse(end) - Date.parse(i.startedAt)) / 1000);
  return i.resolvedAt ? text : `${text} so far`;
}

/**
 * The components an incident affected, each with the status it gave them, as the page's component list says it: a
 * monitor's incident is its checks failing, so its component was down (a major outage, whatever the impact); a
 * declared one gives its impact's status (Statuspage's mapping).
 */
function AffectedList({ incident: i }: { incident: PublicIncident }) {
  const status = i.source === 'monitor' ? 'major_outage' : IMPACT_STATUS[i.impact];
  const label = i.source === 'manual' && i.impact === 'none' ? IMPACT_TEXT.none : PUBLIC_STATUS_LABELS[status];
  if (!i.components.length)
    return (
      <p>
        All components <span class={`state ${status}`}>({label})</span>
      </p>
    );
  return (
    <ul class="affected">
      {i.components.map((c) => (
        <li>
          <span class="name">{c.name}</span> <span class={`state ${status}`}>{label}</span>
        </li>
      ))}
    </ul>
  );
}

/** The history of the month an incident started in: the link back from its page. */
const historyPath = (basePath: string, iso: string) => `${basePath}/history?month=${iso.slice(0, 7)}`;

/** An incident's own page: what happened, when, for how long, to what, and every update. */
export function IncidentPage(props: { page: MastheadPage; incident: PublicIncident; now: string; assets: AssetUrls }) {
  const { incident: i, page } = props;
  const base = page.basePath;
  const resolved = i.status === 'resolved';
  const auto = monitorIncidentText(i);
  return (
    <PublicDocument
      title={`${i.title} · ${statusTitle(page.name)}`}
      assets={props.assets}
      feedBase={base}
      branding={{ basePath: base, brand: page.brand }}
    >
      <Masthead page={page} home={false} />
      <main class="wrap">
        <article class="incident-page" data-incident-id={i.id}>
          <p class="muted">
            <span class={`tag ${resolved ? 'operational' : IMPACT_STATUS[i.impact]}`}>{incidentStage(i)}</span>{' '}
            {IMPACT_TEXT[i.impact]}
          </p>
          <h1>{i.title}</h1>
          <div class="card">
            <dl class="facts">
              <div>
                <dt>Started</dt>
                <dd>
                  <Time iso={i.startedAt} />
                </dd>
              </div>
              <div>
                <dt>{resolved ? 'Resolved' : 'Status'}</dt>
                <dd>{i.resolvedAt ? <Time iso={i.resolvedAt} /> : 'Ongoing'}</dd>
              </div>
              <div>
                <dt>Duration</dt>
                <dd>{lasted(i, props.now)}</dd>
              </div>
            </dl>
            <h2 class="card-heading">Affected components</h2>
            <AffectedList incident={i} />
          </div>
          <section aria-labelledby="updates">
            <h2 id="updates">Updates</h2>
            <div class="card">
              {auto && <p class="body">{auto}</p>}
              {i.updates.length ? <Timeline updates={i.updates} /> : !auto && <p class="muted">No updates posted.</p>}
            </div>
          </section>
        </article>
        <p class="more">
          <a href={historyPath(base, i.startedAt)}>Incidents of {monthName(i.startedAt.slice(0, 7))}</a> ·{' '}
          <a href={base || '/'}>Current status</a>
        </p>
      </main>
    </PublicDocument>
  );
}

/** One line of the history: the incident's title (to its page), how it ended, when and for how long. */
function HistoryIncident({ incident: i, basePath, now }: { incident: PublicIncident; basePath: string; now: string }) {
  const resolved = i.status === 'resolved';
  return (
    <article class={`card notice incident${resolved ? ' resolved' : ''}`} data-incident-id={i.id}>
      <h3>
        <a href={incidentPath(basePath, i.id)}>{i.title}</a>
      </h3>
      <div class="muted">
        {incidentStage(i)} · {IMPACT_TEXT[i.impact]} · <Time iso={i.startedAt} /> · {lasted(i, now)}
      </div>
      <div class="muted">
        Affects: {i.components.length ? i.components.map((c) => c.name).join(', ') : 'all components'}
      </div>
    </article>
  );
}

/** The history of a month: its incidents and maintenance, and the months before and after it (within bounds). */
export function HistoryPage(props: {
  page: MastheadPage;
  history: PublicHistory;
  prev: Month | null;
  next: Month | null;
  now: string;
  assets: AssetUrls;
}) {
  const { history: h, page } = props;
  const base = page.basePath;
  const name = monthName(h.month);
  const monthLink = (m: Month) => `${base}/history?month=${m}`;
  return (
    <PublicDocument
      title={`History, ${name} · ${statusTitle(page.name)}`}
      assets={props.assets}
      feedBase={base}
      branding={{ basePath: base, brand: page.brand }}
    >
      <Masthead page={page} home={false} />
      <main class="wrap">
        <h1>Incident history</h1>
        <nav class="month-nav" aria-label="Months">
          {props.prev ? (
            <a href={monthLink(props.prev)} rel="prev">
              ← {monthName(props.prev)}
            </a>
          ) : (
            <span />
          )}
          <strong aria-current="page">{name}</strong>
          {props.next ? (
            <a href={monthLink(props.next)} rel="next">
              {monthName(props.next)} →
            </a>
          ) : (
            <span />
          )}
        </nav>
        <section aria-labelledby="h-incidents">
          <h2 id="h-incidents">Incidents</h2>
          {h.incidents.length ? (
            h.incidents.map((i) => <HistoryIncident incident={i} basePath={base} now={props.now} />)
          ) : (
            <p class="card muted">No incidents in {name}.</p>
          )}
        </section>
        <Block id="h-maintenance" title="Maintenance" show={h.maintenance.length > 0}>
          {h.maintenance.map((m) => (
            <MaintenanceCard window={m} />
          ))}
        </Block>
        {h.truncated && <p class="muted">Only the most recent entries of this month are listed.</p>}
        <p class="more">
          <a href={base || '/'}>Current status</a>
        </p>
      </main>
    </PublicDocument>
  );
}

export const renderIncidentPage = (props: Parameters<typeof IncidentPage>[0]) =>
  renderPage(<IncidentPage {...props} />);
export const renderHistoryPage = (props: Parameters<typeof HistoryPage>[0]) => renderPage(<HistoryPage {...props} />);
