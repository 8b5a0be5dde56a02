import type { Pagination } from '@statusvane/shared';
import type { MonitorStatusCounts } from '../../services/monitors/count-monitors.js';
import { MONITOR_STATUS_ORDER, type MonitorSortKey } from '../../services/monitors/list-monitors.js';
import type { ResponseSparkline } from '../../services/monitors/list-response-sparklines.js';
import type { MonitorRecord } from '../../services/monitors/monitor-record.js';
import { Button, LinkButton } from '../../views/components/button.js';
import { EmptyState } from '../../views/components/empty-state.js';
import { PostForm } from '../../views/components/form.js';
import { StatusBadge, STATUS_LABELS, type MonitorStatus } from '../../views/components/status-badge.js';
import { DataTable, type Column } from '../../views/components/table.js';
import { relativeTime } from '../../views/format.js';
import { Sparkline } from './sparkline.js';

export const MONITOR_TYPE_LABELS = {
  http: 'HTTP',
  tcp: 'TCP',
  dns: 'DNS',
  heartbeat: 'Heartbeat',
  api: 'API',
  domain: 'Domain',
} as const;
/**
 * The kinds the console's form creates and edits: every kind but `domain` (registration expiry over RDAP), which is
 * listed and shown like the others and written through the API, the CLI or a config document for now. An `api`
 * monitor's steps have their own editor.
 */
export type MonitorType = Exclude<keyof typeof MONITOR_TYPE_LABELS, 'domain'>;

/** The filters the monitors page understands, as its URL carries them. */
export interface MonitorFilters {
  q?: string | undefined;
  status?: MonitorStatus | undefined;
  type?: MonitorType | undefined;
  /** `key=value`: one metadata value to match exactly. */
  meta?: string | undefined;
  sort?: string | undefined;
  page: number;
}

/** The page's own URL with some filters changed (links keep the others). */
export function monitorsHref(base: string, filters: Partial<MonitorFilters>): string {
  const params = new URLSearchParams();
  for (const key of ['q', 'status', 'type', 'meta', 'sort'] as const) {
    const v = filters[key];
    if (v) params.set(key, v);
  }
  if (filters.page && filters.page > 1) params.set('page', String(filters.page));
  const qs = params.toString();
  return `${base}/monitors${qs ? `?${qs}` : ''}`;
}

/** The counts by status, each a filter link (the current one marked), keeping the other filters. */
export function MonitorCounts(props: { base: string; counts: MonitorStatusCounts; filters: MonitorFilters }) {
  const { counts, filters } = props;
  const keep = { ...filters, status: undefined, page: 1 };
  return (
    <nav aria-label="Monitors by status">
      <ul class="counts">
        <li>
          <a class="count" href={monitorsHref(props.base, keep)} aria-current={filters.status ? undefined : 'true'}>
            All <strong>{counts.total}</strong>
          </a>
        </li>
        {MONITOR_STATUS_ORDER.map((s) => (
          <li>
            <a
              class={`count count-${s}`}
              href={monitorsHref(props.base, { ...keep, status: s })}
              aria-current={filters.status === s ? 'true' : undefined}
            >
              <span class="dot" aria-hidden="true" />
              {STATUS_LABELS[s]} <strong>{counts[s]}</strong>
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/**
 * Search and filters (status, type, metadata) and the order: a GET form, so every filtered view has its own URL and
 * works without JavaScript.
 */
export function MonitorFilterForm(props: { base: string; filters: MonitorFilters; metaError?: string | undefined }) {
  const f = props.filters;
  return (
    <form class="filters" method="get" action={`${props.base}/monitors`} role="search" aria-label="Filter monitors">
      <div class="grow">
        <label class="label" htmlFor="monitor-q">
          Search
        </label>
        <input id="monitor-q" type="search" name="q" value={f.q ?? ''} maxLength={120} placeholder="Name contains…" />
      </div>
      <div class="filter-select">
        <label class="label" htmlFor="monitor-status">
          Status
        </label>
        <select id="monitor-status" name="status" data-autosubmit>
          <option value="">Any status</option>
          {MONITOR_STATUS_ORDER.map((s) => (
            <option value={s} selected={f.status === s}>
              {STATUS_LABELS[s]}
            </option>
          ))}
        </select>
      </div>
      <div class="filter-select">
        <label class="label" htmlFor="monitor-type">
          Type
        </label>
        <select id="monitor-type" name="type" data-autosubmit>
          <option value="">Any type</option>
          {Object.entries(MONITOR_TYPE_LABELS).map(([t, label]) => (
            <option value={t} selected={f.type === t}>
              {label}
            </option>
          ))}
        </select>
      </div>
      <div class="filter-meta">
        <label class="label" htmlFor="monitor-meta">
          Metadata
        </label>
        <input
          id="monitor-meta"
          type="text"
          name="meta"
          value={f.meta ?? ''}
          maxLength={570}
          placeholder="team=payments"
          aria-describedby={props.metaError ? 'monitor-meta-error' : undefined}
          aria-invalid={props.metaError ? 'true' : undefined}
        />
        {props.metaError && (
          <p id="monitor-meta-error" class="field-error">
            {props.metaError}
          </p>
        )}
      </div>
      {f.sort && <input type="hidden" name="sort" value={f.sort} />}
      <Button variant="secondary">Apply</Button>
    </form>
  );
}

/** A column header that sorts by its key: ascending first, then descending; the current order marked. */
function SortHeader(props: { base: string; filters: MonitorFilters; key_: MonitorSortKey; label: string }) {
  const { filters, key_: key } = props;
  const ascending = filters.sort === key;
  const descending = filters.sort === `-${key}`;
  const next = ascending ? `-${key}` : key;
  return (
    <a class="sort" href={monitorsHref(props.base, { ...filters, sort: next, page: 1 })}>
      {props.label}
      <span class="sort-mark" aria-hidden="true">
        {ascending ? '▲' : descending ? '▼' : '↕'}
      </span>
      <span class="visually-hidden">
        {ascending ? ', sorted ascending' : descending ? ', sorted descending' : ''}, sort
        {ascending ? ' descending' : ' ascending'}
      </span>
    </a>
  );
}

function sortState(filters: MonitorFilters, key: MonitorSortKey): 'ascending' | 'descending' | undefined {
  return filters.sort === key ? 'ascending' : filters.sort === `-${key}` ? 'descending' : undefined;
}

/** Uptime as the list shows it: two decimals, never rounded up to 100. */
export function formatUptime(percent: number | null): string {
  if (percent === null) return '–';
  return `${(Math.floor(percent * 100) / 100).toFixed(2)}%`;
}

/** How an uptime figure reads at a glance (the class colours it; the figure is always in words). */
export const uptimeClass = (percent: number | null) =>
  percent === null ? 'uptime' : percent >= 99.9 ? 'uptime good' : percent >= 99 ? 'uptime fair' : 'uptime poor';

/** Days until the certificate expires, and how urgent that is. */
function CertificateDays({ monitor }: { monitor: MonitorRecord }) {
  const c = monitor.certificate;
  if (!c) return <span class="muted">–</span>;
  const d = c.daysRemaining;
  const cls = d < 0 ? 'cert expired' : d <= (monitor.certificateExpiryDays ?? 7) ? 'cert soon' : 'cert';
  return (
    <span class={cls} title={`Valid until ${c.validTo}`}>
      {d < 0 ? 'Expired' : `${d} day${d === 1 ? '' : 's'}`}
    </span>
  );
}

/** What the table shows beside each record. */
export interface MonitorRowFigures {
  uptime24h: number | null;
  sparkline: ResponseSparkline;
}

/**
 * The table of monitors. Rows carry `data-monitor` and `data-status` for live updates; writers get a box per row for
 * the bulk actions (it belongs to the bulk form) and a pause or resume button (a POST form with the CSRF token and the
 * record's version); viewers get neither.
 */
export function MonitorTable(props: {
  base: string;
  monitors: readonly MonitorRecord[];
  figures: ReadonlyMap<string, MonitorRowFigures>;
  filters: MonitorFilters;
  now: Date;
  canWrite: boolean;
  csrf: string;
  /** Where a write returns to: this page with its filters. */
  back: string;
}) {
  const { base, filters } = props;
  const figure = (m: MonitorRecord) => props.figures.get(m.id);
  const columns: Array<Column<MonitorRecord>> = [];
  if (props.canWrite)
    columns.push({
      header: 'Select',
      hiddenHeader: true,
      class: 'select',
      head: (
        <>
          <input type="checkbox" id="select-all" aria-label="Select every monitor on this page" data-js-only />
          <span class="visually-hidden">Select</span>
        </>
      ),
      cell: (m) => <input type="checkbox" name="id" value={m.id} form="bulk" aria-label={`Select ${m.name}`} />,
    });
  columns.push(
    {
      header: 'Status',
      class: 'status',
      sorted: sortState(filters, 'status'),
      head: <SortHeader base={base} filters={filters} key_="status" label="Status" />,
      cell: (m) => <StatusBadge status={m.status} />,
    },
    {
      header: 'Name',
      class: 'name',
      sorted: sortState(filters, 'name'),
      head: <SortHeader base={base} filters={filters} key_="name" label="Name" />,
      cell: (m) => (
        <span class="name-cell">
          <a href={`${base}/monitors/${m.id}`}>{m.name}</a>
          <span class="type-tag">{MONITOR_TYPE_LABELS[m.type]}</span>
        </span>
      ),
    },
    {
      header: 'Target',
      class: 'target',
      cell: (m) => {
        // An api monitor has steps instead of a target: how many, and the first request (each in the title).
        const shown = m.steps?.length
          ? {
              text: `${m.steps.length} step${m.steps.length === 1 ? '' : 's'}: ${m.steps[0]!.method} ${m.steps[0]!.url}`,
              title: m.steps.map((s) => `${s.name}: ${s.method} ${s.url}`).join('\n'),
            }
          : { text: m.target ?? '—', title: m.target ?? undefined };
        return (
          <span class="mono" title={shown.title}>
            {shown.text}
          </span>
        );
      },
    },
    {
      header: 'Uptime 24 h',
      class: 'num',
      sorted: sortState(filters, 'uptime24h'),
      head: <SortHeader base={base} filters={filters} key_="uptime24h" label="Uptime 24 h" />,
      cell: (m) => {
        const u = figure(m)?.uptime24h ?? null;
        return <span class={uptimeClass(u)}>{formatUptime(u)}</span>;
      },
    },
    {
      header: 'Response 24 h',
      class: 'spark-col',
      sorted: sortState(filters, 'responseTime'),
      head: <SortHeader base={base} filters={filters} key_="responseTime" label="Response 24 h" />,
      cell: (m) => <Sparkline line={figure(m)?.sparkline ?? { hours: [], avgMs: null }} />,
    },
    {
      header: 'Last check',
      class: 'when',
      cell: (m) =>
        m.lastCheckedAt ? (
          <time datetime={m.lastCheckedAt} title={m.lastCheckedAt} data-last-check>
            {relativeTime(new Date(m.lastCheckedAt), props.now)}
          </time>
        ) : (
          <time data-last-check>Never</time>
        ),
    },
    { header: 'Certificate', class: 'num', cell: (m) => <CertificateDays monitor={m} /> },
  );
  if (props.canWrite)
    columns.push({
      header: 'Actions',
      hiddenHeader: true,
      class: 'actions',
      cell: (m) => (
        <PostForm action={`${base}/monitors/${m.id}/${m.enabled ? 'pause' : 'resume'}`} csrf={props.csrf}>
          <input type="hidden" name="version" value={String(m.version)} />
          <input type="hidden" name="back" value={props.back} />
          <Button variant="secondary" small label={`${m.enabled ? 'Pause' : 'Resume'} ${m.name}`}>
            {m.enabled ? 'Pause' : 'Resume'}
          </Button>
        </PostForm>
      ),
    });
  return (
    <DataTable
      caption="Monitors"
      captionHidden
      class="monitors"
      columns={columns}
      rows={props.monitors}
      rowId={(m) => `monitor-${m.id}`}
      rowAttrs={(m) => ({ 'data-monitor': m.id, 'data-status': m.status })}
    />
  );
}

/**
 * The bulk actions' bar: a GET form (the preview changes nothing) that the rows' boxes belong to. Delete only for
 * those who may delete.
 */
export function BulkBar(props: { base: string; back: string; canDelete: boolean }) {
  return (
    <form id="bulk" class="bulk-bar" method="get" action={`${props.base}/monitors/bulk`} aria-label="Bulk actions">
      <input type="hidden" name="back" value={props.back} />
      <span id="bulk-count" class="muted" aria-live="polite">
        Tick monitors, then
      </span>
      <Button variant="secondary" small name="action" value="pause">
        Pause selected
      </Button>
      <Button variant="secondary" small name="action" value="resume">
        Resume selected
      </Button>
      {props.canDelete && (
        <Button variant="secondary" small name="action" value="delete" class="btn-danger-outline">
          Delete selected
        </Button>
      )}
    </form>
  );
}

/** Previous and next page links, with where the page stands. */
export function MonitorPager(props: { base: string; filters: MonitorFilters; pagination: Pagination; shown: number }) {
  const { pagination: p, filters } = props;
  if (p.total === 0) return null;
  const first = (p.page - 1) * p.perPage + 1;
  return (
    <nav class="pagination" aria-label="Pages of monitors">
      <span>
        {first}–{first + props.shown - 1} of {p.total}
      </span>
      <span class="links">
        {p.page > 1 && (
          <LinkButton small href={monitorsHref(props.base, { ...filters, page: p.page - 1 })}>
            Previous
          </LinkButton>
        )}
        {p.page * p.perPage < p.total && (
          <LinkButton small href={monitorsHref(props.base, { ...filters, page: p.page + 1 })}>
            Next
          </LinkButton>
        )}
      </span>
    </nav>
  );
}

/** No monitor at all, or none matching the filters. */
export function NoMonitors(props: { base: string; filtered: boolean; canWrite: boolean }) {
  return props.filtered ? (
    <EmptyState title="No monitor matches" action={<a href={`${props.base}/monitors`}>Clear the filters</a>}>
      Try another name, status, type or metadata value.
    </EmptyState>
  ) : (
    <EmptyState
      title="No monitors yet"
      action={props.canWrite ? <a href={`${props.base}/monitors/new`}>Create your first monitor</a> : undefined}
    >
      Create one here, with the API (<code>POST /api/v1/monitors</code>), the CLI, or a <code>statusvane.yaml</code>; it
      shows up here with its status.
    </EmptyState>
  );
}
