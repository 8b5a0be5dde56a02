import { INCIDENT_UPDATE_LABELS, type MaintenanceStatus } from '@statusvane/shared';
import type { ComponentChildren } from 'preact';
import {
  PAST_INCIDENT_DAYS,
  type PublicIncident,
  type PublicIncidentUpdate,
  type PublicPageData,
} from '../../services/status-pages/public-page.js';
import type { AssetUrls } from '../assets.js';
import { renderPage } from '../render.js';
import { PublicDocument, Time } from './public-document.js';
import { Masthead } from './masthead.js';
import { SubscribeForm } from './page-forms.js';
import {
  HEADLINE,
  IMPACT_TEXT,
  incidentStage,
  monitorIncidentText,
  PUBLIC_STATUS_LABELS,
  statusTitle,
} from './status-words.js';
import { BAR_KEY, OverallUptime, UptimeBars } from './uptime-bars.js';

function Affected({ components }: { components: Array<{ name: string }> }) {
  return (
    <div class="muted">Affects: {components.length ? components.map((c) => c.name).join(', ') : 'all components'}</div>
  );
}

/** Updates newest first, as status pages show them: the latest word is read first. */
export function Timeline({ updates }: { updates: PublicIncidentUpdate[] }) {
  if (!updates.length) return null;
  return (
    <ol class="timeline" reversed>
      {[...updates].reverse().map((u) => (
        <li>
          <strong>{INCIDENT_UPDATE_LABELS[u.status]}</strong>{' '}
          <span class="muted">
            <Time iso={u.createdAt} />
          </span>
          <p class="body">{u.message}</p>
        </li>
      ))}
    </ol>
  );
}

/** An incident's permalink (its own page), relative to the page's base path. */
export const incidentPath = (basePath: string, id: string) => `${basePath}/incidents/${id}`;

/**
 * An incident: its title (linking to its own page), stage, impact and times, what it affects, and its timeline (or
 * the monitor's words).
 */
export function IncidentCard({ incident: i, basePath }: { incident: PublicIncident; basePath: string }) {
  const resolved = i.status === 'resolved';
  const auto = monitorIncidentText(i);
  return (
    <article
      class={`card notice incident${resolved ? ' resolved' : ''}`}
      id={`incident-${i.id}`}
      data-incident-id={i.id}
    >
      <h3>
        <a href={incidentPath(basePath, i.id)}>{i.title}</a>
      </h3>
      <div class="muted">
        {incidentStage(i)} · {IMPACT_TEXT[i.impact]} · started <Time iso={i.startedAt} />
        {i.resolvedAt && (
          <>
            {' '}
            · resolved <Time iso={i.resolvedAt} />
          </>
        )}
      </div>
      <Affected components={i.components} />
      {auto && <p class="body">{auto}</p>}
      {resolved && i.updates.length ? (
        <details>
          <summary>
            {i.updates.length} update{i.updates.length === 1 ? '' : 's'}
          </summary>
          <Timeline updates={i.updates} />
        </details>
      ) : (
        <Timeline updates={i.updates} />
      )}
    </article>
  );
}

type Window = PublicPageData['maintenance'][number];

export function MaintenanceCard({ window: m }: { window: Omit<Window, 'status'> & { status: MaintenanceStatus } }) {
  const cancelled = m.status === 'cancelled';
  return (
    <article
      class={`card notice maintenance${cancelled ? ' cancelled' : ''}`}
      id={`maintenance-${m.id}`}
      data-maintenance-id={m.id}
    >
      <h3>
        {cancelled && <span class="tag">Cancelled</span>}
        {cancelled && ' '}
        {m.title}
      </h3>
      <div class="muted">
        {cancelled && 'Was planned for '}
        <Time iso={m.startsAt} /> – <Time iso={m.endsAt} />
        {m.cancelledAt && (
          <>
            {' '}
            · called off <Time iso={m.cancelledAt} />
          </>
        )}
      </div>
      {m.body && <p class="body">{m.body}</p>}
      <Affected components={m.components} />
    </article>
  );
}

export function Block({
  id,
  title,
  children,
  show,
}: {
  id: string;
  title: string;
  children: ComponentChildren;
  show: boolean;
}) {
  if (!show) return null;
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

export interface PageLinks {
  /** The page's path on this host: `/status/<slug>`, or '' when served at the root of its custom domain. */
  basePath: string;
  assets: AssetUrls;
}

/** The status page itself. */
export function StatusPage({ data: d, links }: { data: PublicPageData; links: PageLinks }) {
  const base = links.basePath;
  const byId = new Map(d.components.map((c) => [c.id, c]));
  const uptime = new Map(d.uptime.components.map((u) => [u.componentId, u]));
  const windows = (status: Window['status']) => d.maintenance.filter((m) => m.status === status);
  const cards = (list: Window[]) => list.map((m) => <MaintenanceCard window={m} />);
  return (
    <PublicDocument
      title={statusTitle(d.page.name)}
      assets={links.assets}
      feedBase={base}
      branding={{ basePath: base, brand: d.page.brand }}
    >
      <Masthead page={{ name: d.page.name, basePath: base, brand: d.page.brand }} home>
        <div class={`banner ${d.summary}`} role="status">
          {HEADLINE[d.summary]}
        </div>
      </Masthead>
      <main class="wrap">
        <Block id="incidents" title="Active incidents" show={d.incidents.length > 0}>
          {d.incidents.map((i) => (
            <IncidentCard incident={i} basePath={base} />
          ))}
        </Block>
        <Block id="maint-now" title="Maintenance in progress" show={windows('in_progress').length > 0}>
          {cards(windows('in_progress'))}
        </Block>
        <Block id="maint-next" title="Upcoming maintenance" show={windows('scheduled').length > 0}>
          {cards(windows('scheduled'))}
        </Block>
        <Block id="maint-off" title="Cancelled maintenance" show={windows('cancelled').length > 0}>
          {cards(windows('cancelled'))}
        </Block>
        <section aria-labelledby="components">
          <div class="section-head">
            <h2 id="components">Components</h2>
            <OverallUptime uptime={d.uptime} />
          </div>
          {d.components.length === 0 && <div class="card muted">No components yet.</div>}
          {d.components.length > 0 &&
            d.sections.map((s, n) => (
              <section
                class="card components"
                aria-labelledby={s.name !== null ? `sec-${n}` : undefined}
                aria-label={s.name === null ? 'Components' : undefined}
              >
                {s.name !== null && <h3 id={`sec-${n}`}>{s.name}</h3>}
                {s.componentIds.map((id) => {
                  const c = byId.get(id)!;
                  return (
                    <div class="component" data-component-id={c.id}>
                      <div class="row">
                        <span class="name">{c.name}</span>
                        <span class={`state ${c.state}`}>
                          {PUBLIC_STATUS_LABELS[c.state]}
                          {c.maintenanceUntil && (
                            <>
                              {' '}
                              until <Time iso={c.maintenanceUntil} />
                            </>
                          )}
                        </span>
                      </div>
                      {c.description && <p class="description muted">{c.description}</p>}
                      <UptimeBars
                        series={uptime.get(c.id)}
                        days={d.uptime.days}
                        name={c.name}
                        policy={d.uptime.policy}
                      />
                    </div>
                  );
                })}
              </section>
            ))}
          <ul class="key muted" aria-label="What the bar colours mean">
            {BAR_KEY.map(([cls, text]) => (
              <li>
                <span class={`swatch ${cls}`} />
                {text}
              </li>
            ))}
          </ul>
        </section>
        <section aria-labelledby="past">
          <h2 id="past">Past incidents</h2>
          {d.pastIncidents.length ? (
            d.pastIncidents.map((i) => <IncidentCard incident={i} basePath={base} />)
          ) : (
            <p class="card muted">No incidents in the last {PAST_INCIDENT_DAYS} days.</p>
          )}
          <p class="more">
            <a href={`${base}/history`}>Incident history</a>
          </p>
        </section>
        <section aria-labelledby="subscribe">
          <h2 id="subscribe">Get updates</h2>
          <div class="card">
            <SubscribeForm basePath={base} />
            <p class="muted">
              <a href={`${base}/subscribe`}>Choose components, or add a webhook</a>. Or follow the{' '}
              <a href={`${base}/feed.atom`}>Atom</a> or <a href={`${base}/feed.rss`}>RSS</a> feed.
            </p>
          </div>
        </section>
      </main>
      <footer class="wrap muted">
        <p>
          Updated <Time iso={d.generatedAt} />. Uptime bars: one per UTC day, fewer days on narrow screens.
        </p>
      </footer>
    </PublicDocument>
  );
}

/** The status page as HTML. */
export function renderStatusPage(d: PublicPageData, links: PageLinks): string {
  return renderPage(<StatusPage data={d} links={links} />);
}
