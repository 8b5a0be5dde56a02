import type { ComponentChildren } from 'preact';
import { INCIDENT_UPDATE_LABELS, INCIDENT_UPDATE_STATUSES, type Pagination } from '@statusvane/shared';
import type { EscalationStateRecord } from '../../services/incidents/get-escalation.js';
import type { IncidentRecord } from '../../services/incidents/incident-record.js';
import type { IncidentUpdateRecord } from '../../services/incidents/incident-update-record.js';
import { Button } from '../../views/components/button.js';
import { EmptyState } from '../../views/components/empty-state.js';
import { PostForm, SelectField, TextAreaField } from '../../views/components/form.js';
import { Pager } from '../../views/components/pager.js';
import { DataTable, type Column } from '../../views/components/table.js';
import { dateTimeUtc, duration, relativeTime } from '../../views/format.js';

type IncidentStatus = IncidentRecord['status'];

const STATUS_WORDS: Record<IncidentStatus, string> = {
  open: 'Open',
  acknowledged: 'Acknowledged',
  resolved: 'Resolved',
};

/** An incident's state in words with a shape beside them (never colour alone). */
export function IncidentBadge({ status }: { status: IncidentStatus }) {
  return (
    <span class={`badge incident-${status}`}>
      <span class="dot" aria-hidden="true" />
      {STATUS_WORDS[status]}
    </span>
  );
}

const IMPACT_WORDS: Record<IncidentRecord['impact'], string> = {
  none: 'No impact',
  minor: 'Minor',
  major: 'Major',
  critical: 'Critical',
};

export function ImpactTag({ impact }: { impact: IncidentRecord['impact'] }) {
  return <span class={`tag impact-${impact}`}>{IMPACT_WORDS[impact]}</span>;
}

/** A time as people read it, with the exact instant in `datetime` and its title. */
export function When({ at, now }: { at: string; now: Date }) {
  return (
    <time datetime={at} title={dateTimeUtc(new Date(at))}>
      {relativeTime(new Date(at), now)}
    </time>
  );
}

/** How long an incident has lasted (or lasted, once resolved). */
const lasted = (i: IncidentRecord, now: Date) =>
  duration((i.resolvedAt ? new Date(i.resolvedAt) : now).getTime() - new Date(i.startedAt).getTime());

/** The list of incidents: state, title (a link to its page), impact, start, duration, who acknowledged. */
export function IncidentTable(props: {
  base: string;
  incidents: readonly IncidentRecord[];
  now: Date;
  caption: string;
}) {
  const columns: Array<Column<IncidentRecord>> = [
    { header: 'Status', class: 'status', cell: (i) => <IncidentBadge status={i.status} /> },
    {
      header: 'Incident',
      class: 'name',
      cell: (i) => <a href={`${props.base}/incidents/${i.id}`}>{i.title}</a>,
    },
    { header: 'Impact', class: 'impact', cell: (i) => <ImpactTag impact={i.impact} /> },
    { header: 'Started', class: 'when', cell: (i) => <When at={i.startedAt} now={props.now} /> },
    { header: 'Duration', class: 'when', cell: (i) => lasted(i, props.now) },
    {
      header: 'Acknowledged by',
      class: 'who',
      cell: (i) => i.acknowledgedBy?.name ?? (i.status === 'open' ? 'Nobody yet' : '—'),
    },
  ];
  return (
    <DataTable
      caption={props.caption}
      captionHidden
      class="incidents"
      columns={columns}
      rows={props.incidents}
      rowId={(i) => `incident-${i.id}`}
      rowAttrs={(i) => ({ 'data-status': i.status })}
    />
  );
}

/** The incidents list's filters, as its URL carries them. */
export interface IncidentFilters {
  status?: IncidentStatus | undefined;
  days: 7 | 30 | 90;
  page: number;
}

export function incidentsHref(base: string, f: Partial<IncidentFilters>): string {
  const params = new URLSearchParams();
  if (f.status) params.set('status', f.status);
  if (f.days && f.days !== 7) params.set('days', String(f.days));
  if (f.page && f.page > 1) params.set('page', String(f.page));
  const qs = params.toString();
  return `${base}/incidents${qs ? `?${qs}` : ''}`;
}

/** Status and period: a GET form (each view has its own URL; works without JavaScript). */
export function IncidentFilterForm(props: { base: string; filters: IncidentFilters }) {
  return (
    <form class="filters" method="get" action={`${props.base}/incidents`} role="search" aria-label="Filter incidents">
      <div class="status-select">
        <SelectField
          name="status"
          label="Status"
          value={props.filters.status ?? ''}
          autosubmit
          options={[
            { value: '', label: 'Open first, then recent' },
            { value: 'open', label: 'Open' },
            { value: 'acknowledged', label: 'Acknowledged' },
            { value: 'resolved', label: 'Resolved' },
          ]}
        />
      </div>
      <div class="status-select">
        <SelectField
          name="days"
          label="Started in the last"
          value={String(props.filters.days)}
          autosubmit
          options={[
            { value: '7', label: '7 days' },
            { value: '30', label: '30 days' },
            { value: '90', label: '90 days' },
          ]}
        />
      </div>
      <div class="field">
        <Button variant="secondary">Apply</Button>
      </div>
    </form>
  );
}

/** Previous and next page links of a filtered list. */
export function IncidentPager(props: { base: string; filters: IncidentFilters; pagination: Pagination }) {
  return (
    <Pager
      label="incidents"
      pagination={props.pagination}
      href={(page) => incidentsHref(props.base, { ...props.filters, page })}
      count={`${props.pagination.total} incidents`}
    />
  );
}

export function NoIncidents(props: { base: string; filtered: boolean; canWrite: boolean }) {
  return props.filtered ? (
    <EmptyState title="No incident matches" action={<a href={`${props.base}/incidents`}>Clear the filters</a>}>
      Try another status or a longer period.
    </EmptyState>
  ) : (
    <EmptyState
      title="No incidents in the last 7 days"
      action={props.canWrite ? <a href={`${props.base}/incidents/new`}>Declare an incident</a> : undefined}
    >
      Monitors open incidents when their checks fail; you can also declare one by hand.
    </EmptyState>
  );
}

/** One entry of an incident's timeline. */
interface TimelineEntry {
  at: string;
  kind: 'opened' | 'paged' | 'acknowledged' | 'update' | 'resolved';
  title: string;
  body?: ComponentChildren;
}

const DELIVERY_WORDS = { pending: 'pending', sent: 'sent', failed: 'failed', skipped: 'skipped' } as const;

/**
 * The incident's story, oldest first: opened (with each region's evidence), every escalation step that paged (its
 * deliveries and how each went), the acknowledgement and who made it, the updates, the resolution.
 */
export function Timeline(props: {
  incident: IncidentRecord;
  updates: readonly IncidentUpdateRecord[];
  escalation: EscalationStateRecord;
  now: Date;
}) {
  const { incident: i, escalation } = props;
  const entries: TimelineEntry[] = [
    {
      at: i.startedAt,
      kind: 'opened',
      title: i.source === 'manual' ? 'Declared' : `Opened${i.reason ? `: ${i.reason.replace(/_/g, ' ')}` : ''}`,
      body: i.evidence.length > 0 ? <Evidence incident={i} /> : undefined,
    },
  ];
  for (const step of escalation.steps) {
    if (!step.firedAt) continue;
    entries.push({
      at: step.firedAt,
      kind: 'paged',
      title: `Escalation step ${step.position + 1} paged`,
      body: (
        <ul class="deliveries">
          {step.deliveries.map((d) => (
            <li class={`delivery delivery-${d.status}`}>
              <span class="tag">{d.channel}</span> <span class="mono">{d.target}</span>:{' '}
              <strong>{DELIVERY_WORDS[d.status]}</strong>
              {d.reason ? ` (${d.reason})` : ''}
              {d.sentAt ? (
                <>
                  {' '}
                  at <time datetime={d.sentAt}>{dateTimeUtc(new Date(d.sentAt))}</time>
                </>
              ) : null}
            </li>
          ))}
        </ul>
      ),
    });
  }
  if (i.acknowledgedAt)
    entries.push({
      at: i.acknowledgedAt,
      kind: 'acknowledged',
      title: `Acknowledged${i.acknowledgedBy ? ` by ${i.acknowledgedBy.name}` : ''}`,
      body: i.acknowledgedBy ? (
        <p class="muted">
          {i.acknowledgedBy.type === 'user'
            ? 'A person'
            : i.acknowledgedBy.type === 'token'
              ? 'A workspace token'
              : 'The admin CLI'}
          ; the escalation stopped.
        </p>
      ) : undefined,
    });
  for (const u of props.updates)
    entries.push({
      at: u.createdAt,
      kind: 'update',
      title: `Update: ${INCIDENT_UPDATE_LABELS[u.status]}`,
      body: <p class="update-message">{u.message}</p>,
    });
  if (i.resolvedAt) entries.push({ at: i.resolvedAt, kind: 'resolved', title: 'Resolved' });
  // Stable: entries of the same instant keep the order above (opened, paged, acknowledged, updates, resolved).
  entries.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  return (
    <ol class="timeline" aria-label="Timeline">
      {entries.map((e) => (
        <li class={`timeline-entry entry-${e.kind}`}>
          <span class="timeline-mark" aria-hidden="true" />
          <div class="timeline-body">
            <p class="timeline-head">
              <strong>{e.title}</strong>{' '}
              <time class="muted" datetime={e.at} title={dateTimeUtc(new Date(e.at))}>
                {dateTimeUtc(new Date(e.at))} · {relativeTime(new Date(e.at), props.now)}
              </time>
            </p>
            {e.body}
          </div>
        </li>
      ))}
    </ol>
  );
}

/** Each region's state when the incident opened: failing or not, and its last result. */
function Evidence({ incident }: { incident: IncidentRecord }) {
  return (
    <table class="table evidence">
      <caption>Evidence per region when it opened</caption>
      <thead>
        <tr>
          <th scope="col">Region</th>
          <th scope="col">State</th>
          <th scope="col">Last result</th>
        </tr>
      </thead>
      <tbody>
        {incident.evidence.map((e) => (
          <tr>
            <td data-label="Region">{e.region}</td>
            <td data-label="State">{e.failing ? 'Failing' : 'Passing'}</td>
            <td data-label="Last result">
              {e.lastResult
                ? [
                    e.lastResult.status,
                    e.lastResult.reason?.replace(/_/g, ' '),
                    e.lastResult.statusCode !== null ? `HTTP ${e.lastResult.statusCode}` : null,
                    e.lastResult.totalMs !== null ? `${e.lastResult.totalMs} ms` : null,
                    e.lastResult.address,
                  ]
                    .filter(Boolean)
                    .join(' · ')
                : 'No result yet'}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The API's note with its ISO 8601 instants as the console writes dates (`28 Nov 2026, 21:29 UTC`). */
const readableInstants = (note: string) =>
  note.replace(/\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z\b/g, (iso) => dateTimeUtc(new Date(iso)));

/** The escalation in effect: its policy, what the ladder is doing, and each step. */
export function EscalationPanel({ escalation }: { escalation: EscalationStateRecord }) {
  return (
    <section class="card" aria-labelledby="escalation-h">
      <h2 id="escalation-h">Escalation</h2>
      <p>
        {escalation.policy ? (
          <>
            Policy <strong>{escalation.policy.name}</strong>
            {escalation.policy.silent ? ' (silent)' : ''}
          </>
        ) : (
          'No policy'
        )}
      </p>
      <p class="muted">{readableInstants(escalation.note)}</p>
      {escalation.steps.length > 0 && (
        <ol class="steps">
          {escalation.steps.map((s) => (
            <li>
              Step {s.position + 1}: after {s.delayMinutes} min,{' '}
              {s.minImpact === 'none' ? 'any impact' : `${s.minImpact} impact and above`} —{' '}
              {s.fired
                ? `paged ${s.deliveries.length} time${s.deliveries.length === 1 ? '' : 's'}`
                : s.due
                  ? 'due'
                  : 'waiting'}
            </li>
          ))}
        </ol>
      )}
      {escalation.policy?.runbook ? (
        <p>
          Runbook: <span class="mono">{escalation.policy.runbook}</span>
        </p>
      ) : null}
    </section>
  );
}

/** Acknowledge and resolve, for writers, as the incident's state allows. */
export function IncidentActions(props: { action: string; csrf: string; incident: IncidentRecord }) {
  const { incident } = props;
  if (incident.status === 'resolved') return null;
  return (
    <div class="actions-row">
      {incident.status === 'open' && (
        <PostForm action={`${props.action}/acknowledge`} csrf={props.csrf}>
          <Button>Acknowledge</Button>
        </PostForm>
      )}
      <PostForm action={`${props.action}/resolve`} csrf={props.csrf}>
        <Button variant={incident.status === 'open' ? 'secondary' : 'primary'} confirm="Resolve this incident?">
          Resolve
        </Button>
      </PostForm>
    </div>
  );
}

/** Post an update (status and message); `resolved` resolves the incident too. */
export function UpdateForm(props: {
  action: string;
  csrf: string;
  values: { status?: string; message?: string };
  errors: Record<string, string>;
}) {
  return (
    <section class="card" aria-labelledby="update-h">
      <h2 id="update-h">Post an update</h2>
      <PostForm action={props.action} csrf={props.csrf} label="Post an update">
        <SelectField
          name="status"
          label="Status"
          value={props.values.status ?? 'investigating'}
          error={props.errors.status}
          options={INCIDENT_UPDATE_STATUSES.map((s) => ({ value: s, label: INCIDENT_UPDATE_LABELS[s] }))}
          hint="Resolved also resolves the incident."
        />
        <TextAreaField
          name="message"
          label="Message"
          value={props.values.message}
          error={props.errors.message}
          maxLength={5000}
          required
          hint="Shown on the status pages that show this incident, and mailed to their subscribers."
        />
        <div class="form-actions">
          <Button>Post update</Button>
        </div>
      </PostForm>
    </section>
  );
}
