import type { CheckResultRecord } from '../../services/monitors/list-check-results.js';
import type { MonitorUptimes } from '../../services/monitors/list-monitor-uptimes.js';
import type { MonitorRecord } from '../../services/monitors/monitor-record.js';
import type { IncidentRecord } from '../../services/incidents/incident-record.js';
import { Button, LinkButton } from '../../views/components/button.js';
import { EmptyState } from '../../views/components/empty-state.js';
import { PostForm } from '../../views/components/form.js';
import { StatusBadge } from '../../views/components/status-badge.js';
import { relativeTime } from '../../views/format.js';
import { formatUptime, MONITOR_TYPE_LABELS, uptimeClass } from './monitor-list-view.js';
import { CHART_RANGES, ResponseChart, ResponseTable, type ChartData, type ChartRange } from './response-chart.js';

const UPTIME_LABELS: Record<keyof MonitorUptimes, string> = {
  '24h': 'Last 24 hours',
  '7d': 'Last 7 days',
  '30d': 'Last 30 days',
  '90d': 'Last 90 days',
};

/** The monitor's name, live status, what it checks and what may be done to it. */
export function MonitorHeader(props: {
  base: string;
  monitor: MonitorRecord;
  csrf: string;
  canWrite: boolean;
  canDelete: boolean;
}) {
  const { monitor: m, base } = props;
  const self = `${base}/monitors/${m.id}`;
  return (
    <div class="page-header monitor-header" data-monitor={m.id} data-status={m.status}>
      <div class="monitor-title">
        <p class="crumbs">
          <a href={`${base}/monitors`}>Monitors</a>
        </p>
        <h1>{m.name}</h1>
        <p class="monitor-sub">
          <StatusBadge status={m.status} />
          <span class="type-tag">{MONITOR_TYPE_LABELS[m.type]}</span>
          {m.target && (
            <span class="mono target" title={m.target}>
              {m.target}
            </span>
          )}
        </p>
      </div>
      {props.canWrite && (
        <div class="header-actions">
          <LinkButton href={`${self}/edit`}>Edit</LinkButton>
          <PostForm action={`${self}/${m.enabled ? 'pause' : 'resume'}`} csrf={props.csrf}>
            <input type="hidden" name="version" value={String(m.version)} />
            <input type="hidden" name="back" value={self} />
            <Button variant="secondary">{m.enabled ? 'Pause' : 'Resume'}</Button>
          </PostForm>
          {props.canDelete && (
            <LinkButton href={`${self}/delete`} variant="quiet">
              Delete
            </LinkButton>
          )}
        </div>
      )}
    </div>
  );
}

/** Uptime over each window, the last check, how often and from where. */
export function MonitorSummary(props: { monitor: MonitorRecord; uptimes: MonitorUptimes; now: Date }) {
  const { monitor: m, uptimes, now } = props;
  return (
    <section aria-labelledby="uptime-title">
      <h2 id="uptime-title" class="visually-hidden">
        Uptime
      </h2>
      <dl class="tiles">
        {(Object.keys(UPTIME_LABELS) as Array<keyof MonitorUptimes>).map((w) => (
          <div class="tile">
            <dt>{UPTIME_LABELS[w]}</dt>
            <dd class={uptimeClass(uptimes[w])}>{formatUptime(uptimes[w])}</dd>
          </div>
        ))}
        <div class="tile tile-wide">
          <dt>Last check</dt>
          <dd>
            {m.lastCheckedAt ? (
              <time datetime={m.lastCheckedAt} title={m.lastCheckedAt} data-last-check>
                {relativeTime(new Date(m.lastCheckedAt), now)}
              </time>
            ) : (
              <time data-last-check>Never</time>
            )}
          </dd>
          <dd class="tile-note">
            {m.type === 'heartbeat'
              ? `Expected every ${m.intervalSeconds} s`
              : `Every ${m.intervalSeconds} s from ${m.regions.join(', ')}`}
          </dd>
        </div>
      </dl>
    </section>
  );
}

const STEP_OUTCOME: Record<'passed' | 'failed' | 'skipped', { label: string; badge: string }> = {
  passed: { label: 'Passed', badge: 'up' },
  failed: { label: 'Failed', badge: 'down' },
  skipped: { label: 'Skipped', badge: 'pending' },
};

/**
 * An api monitor's steps in order: what each sends where and what it checks (headers and bodies by name only), with
 * how each went in the latest result.
 */
export function StepsCard(props: { monitor: MonitorRecord; latest: CheckResultRecord | undefined }) {
  const steps = props.monitor.steps;
  if (!steps) return null;
  const ran = new Map((props.latest?.steps ?? []).map((r) => [r.name, r]));
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  return (
    <section class="card" aria-labelledby="steps-title">
      <h2 id="steps-title">Steps</h2>
      <ol class="step-summary">
        {steps.map((s) => {
          const r = ran.get(s.name);
          return (
            <li>
              <div class="step-head">
                <span class="method-tag">{s.method}</span> <strong>{s.name}</strong>
                {s.always && <span class="chip">cleanup</span>}
                {r && (
                  <span class={`badge badge-${STEP_OUTCOME[r.outcome].badge}`}>
                    <span class="dot" aria-hidden="true" />
                    {STEP_OUTCOME[r.outcome].label}
                    {r.responseMs !== null && ` · ${r.responseMs} ms`}
                  </span>
                )}
              </div>
              <span class="mono step-url">{s.url}</span>
              <span class="muted step-checks">
                {[
                  count(s.assertions?.length ?? 0, 'assertion'),
                  count(s.extract?.length ?? 0, 'extract'),
                  ...(s.headerNames.length ? [`headers ${s.headerNames.join(', ')}`] : []),
                  ...(s.hasBody ? ['a body'] : []),
                ].join(' · ')}
              </span>
              {r?.reason && <span class="step-reason">{r.reason}</span>}
            </li>
          );
        })}
      </ol>
    </section>
  );
}

/** The response-time chart over the chosen range, with the ranges as links. */
export function ResponseTimes(props: { self: string; range: ChartRange; data: ChartData }) {
  return (
    <section class="card" aria-labelledby="response-title">
      <div class="card-head">
        <h2 id="response-title">Response times</h2>
        <nav aria-label="Chart range">
          <ul class="segmented">
            {(Object.keys(CHART_RANGES) as ChartRange[]).map((r) => (
              <li>
                <a
                  href={`${props.self}?range=${r}#response-title`}
                  aria-current={r === props.range ? 'true' : undefined}
                >
                  {r}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      </div>
      <p class="muted chart-note">
        Median (p50, solid) and 95th percentile (p95, dashed) per region over the last {CHART_RANGES[props.range].label}
        .
      </p>
      <ResponseChart
        data={props.data}
        range={props.range}
        title={`Response times, last ${CHART_RANGES[props.range].label}`}
      />
      <ResponseTable data={props.data} range={props.range} />
    </section>
  );
}

const RESULT_LABELS: Record<CheckResultRecord['status'], string> = {
  up: 'Up',
  degraded: 'Degraded',
  down: 'Down',
  missed: 'Missed',
};

function phasesOf(r: CheckResultRecord): string {
  const p = r.phases;
  const parts = [
    ['DNS', p.dnsMs],
    ['connect', p.connectMs],
    ['TLS', p.tlsMs],
    ['wait', p.waitingMs],
  ].flatMap(([label, v]) => (v === null ? [] : [`${label} ${v}`]));
  return parts.length ? parts.join(' · ') : '–';
}

/** The latest check results: status, reason, region, address, status code, time and where it went. */
export function LatestResults(props: { results: readonly CheckResultRecord[]; now: Date }) {
  return (
    <section class="card" aria-labelledby="results-title">
      <h2 id="results-title">Latest results</h2>
      {props.results.length === 0 ? (
        <EmptyState title="No results yet">
          The first check runs within seconds of creating or resuming a monitor.
        </EmptyState>
      ) : (
        <table class="table stack results">
          <caption class="visually-hidden">The latest check results, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Checked</th>
              <th scope="col">Region</th>
              <th scope="col">Result</th>
              <th scope="col">Reason</th>
              <th scope="col">Address</th>
              <th scope="col">Code</th>
              <th scope="col">Total</th>
              <th scope="col">Phases (ms)</th>
            </tr>
          </thead>
          <tbody>
            {props.results.map((r) => (
              <tr>
                <td data-label="Checked" class="when">
                  <time datetime={r.checkedAt} title={r.checkedAt}>
                    {relativeTime(new Date(r.checkedAt), props.now)}
                  </time>
                </td>
                <td data-label="Region" class="region">
                  {r.region}
                </td>
                <td data-label="Result" class="result">
                  <span class={`badge badge-${r.status === 'missed' ? 'pending' : r.status}`}>
                    <span class="dot" aria-hidden="true" />
                    {RESULT_LABELS[r.status]}
                  </span>
                </td>
                <td data-label="Reason" class={r.reason ? 'reason' : 'reason none'}>
                  {r.reason ?? '–'}
                </td>
                <td data-label="Address" class="mono address">
                  {r.address ?? '–'}
                </td>
                <td data-label="Code" class="code">
                  {r.statusCode ?? '–'}
                </td>
                <td data-label="Total" class="num total">
                  {r.totalMs === null ? '–' : `${r.totalMs} ms`}
                </td>
                <td data-label="Phases (ms)" class="phases">
                  {phasesOf(r)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** The certificate of the latest https check, or why there is none. */
export function CertificateCard({ monitor: m }: { monitor: MonitorRecord }) {
  if (m.type !== 'http') return null;
  const c = m.certificate;
  return (
    <section class="card" aria-labelledby="cert-title">
      <h2 id="cert-title">Certificate</h2>
      {c ? (
        <dl class="facts">
          <dt>Expires</dt>
          <dd
            class={
              c.daysRemaining < 0
                ? 'cert expired'
                : c.daysRemaining <= (m.certificateExpiryDays ?? 7)
                  ? 'cert soon'
                  : 'cert'
            }
          >
            {c.daysRemaining < 0 ? 'Expired' : `In ${c.daysRemaining} day${c.daysRemaining === 1 ? '' : 's'}`} (
            {c.validTo.slice(0, 10)})
          </dd>
          <dt>Subject</dt>
          <dd class="mono">{c.subject}</dd>
          <dt>Issuer</dt>
          <dd class="mono">{c.issuer}</dd>
          <dt>Valid from</dt>
          <dd>{c.validFrom.slice(0, 10)}</dd>
          <dt>SHA-256</dt>
          <dd class="mono fingerprint">{c.fingerprint256}</dd>
        </dl>
      ) : (
        <p class="muted">No TLS handshake seen yet (an http:// target has none).</p>
      )}
    </section>
  );
}

/** The heartbeat's ping URL, to put in the job. */
export function PingCard({ monitor: m }: { monitor: MonitorRecord }) {
  if (!m.pingUrl) return null;
  return (
    <section class="card" aria-labelledby="ping-title">
      <h2 id="ping-title">Ping URL</h2>
      <p>
        Request it when the job succeeds; <code>/start</code> when it starts and <code>/fail</code> when it fails.
      </p>
      <p>
        <code id="ping-url" class="secret">
          {m.pingUrl}
        </code>{' '}
        <button type="button" class="btn btn-secondary btn-sm" data-copy="ping-url" data-js-only>
          Copy
        </button>
      </p>
    </section>
  );
}

/** The monitor's incidents, newest first. */
export function MonitorIncidents(props: { base: string; incidents: readonly IncidentRecord[]; now: Date }) {
  return (
    <section class="card" aria-labelledby="incidents-title">
      <h2 id="incidents-title">Incidents</h2>
      {props.incidents.length === 0 ? (
        <p class="muted">No incidents: this monitor has not been down.</p>
      ) : (
        <ul class="incident-list">
          {props.incidents.map((i) => (
            <li>
              <span class={`pill pill-${i.status}`}>{i.status}</span>{' '}
              <a href={`${props.base}/incidents/${i.id}`}>{i.title}</a>
              <span class="muted">
                {' '}
                started {relativeTime(new Date(i.startedAt), props.now)}
                {i.reason ? ` (${i.reason})` : ''}
                {i.resolvedAt ? `, resolved ${relativeTime(new Date(i.resolvedAt), props.now)}` : ''}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
