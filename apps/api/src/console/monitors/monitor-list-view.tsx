import type { Pagination } from '@statusvane/shared';
import type { MonitorStatusCounts } from '../../services/monitors/count-monitors.js';
import type { MonitorRecord } from '../../services/monitors/monitor-record.js';
import { Button, LinkButton } from '../../views/components/button.js';
import { EmptyState } from '../../views/components/empty-state.js';
import { PostForm } from '../../views/components/form.js';
import { StatusBadge, STATUS_LABELS, type MonitorStatus } from '../../views/components/status-badge.js';
import { DataTable, type Column } from '../../views/components/table.js';
import { relativeTime } from '../../views/format.js';

/** The filters the monitors page understands, as its URL carries them. */
export interface MonitorFilters {
  q?: string | undefined;
  status?: MonitorStatus | undefined;
  page: number;
}

/** Statuses the list can filter on today; `maintenance` is counted, and filterable once GET /monitors can. */
export const FILTERABLE_STATUSES = [
  'down',
  'degraded',
  'up',
  'pending',
  'paused',
] as const satisfies readonly MonitorStatus[];
const COUNT_ORDER = ['down', 'degraded', 'up', 'pending', 'maintenance', 'paused'] as const;

/** The page's own URL with some filters changed (links keep the others). */
export function monitorsHref(base: string, filters: Partial<MonitorFilters>): string {
  const params = new URLSearchParams();
  if (filters.q) params.set('q', filters.q);
  if (filters.status) params.set('status', filters.status);
  if (filters.page && filters.page > 1) params.set('page', String(filters.page));
  const qs = params.toString();
  return `${base}/monitors${qs ? `?${qs}` : ''}`;
}

/** The counts by status, each a filter link (the current one marked). */
export function MonitorCounts(props: { base: string; counts: MonitorStatusCounts; filters: MonitorFilters }) {
  const { counts, filters } = props;
  return (
    <nav aria-label="Monitors by status">
      <ul class="counts">
        <li>
          <a
            class="count"
            href={monitorsHref(props.base, { q: filters.q })}
            aria-current={filters.status ? undefined : 'true'}
          >
            All <strong>{counts.total}</strong>
          </a>
        </li>
        {COUNT_ORDER.map((s) => {
          const filterable = (FILTERABLE_STATUSES as readonly string[]).includes(s);
          const body = (
            <>
              <span class="dot" aria-hidden="true" />
              {STATUS_LABELS[s]} <strong>{counts[s]}</strong>
            </>
          );
          return (
            <li>
              {filterable ? (
                <a
                  class={`count count-${s}`}
                  href={monitorsHref(props.base, { q: filters.q, status: s })}
                  aria-current={filters.status === s ? 'true' : undefined}
                >
                  {body}
                </a>
              ) : (
                <span class={`count count-${s}`}>{body}</span>
              )}
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

/** Search and status filter: a GET form, so every filtered view has its own URL (and works without JavaScript). */
export function MonitorFilterForm(props: { base: string; filters: MonitorFilters }) {
  return (
    <form class="filters" method="get" action={`${props.base}/monitors`} role="search" aria-label="Filter monitors">
      <div class="grow">
        <label class="label" htmlFor="monitor-q">
          Search
        </label>
        <input
          id="monitor-q"
          type="search"
          name="q"
          value={props.filters.q ?? ''}
          maxLength={120}
          placeholder="Name contains…"
        />
      </div>
      <div class="status-select">
        <label class="label" htmlFor="monitor-status">
          Status
        </label>
        <select id="monitor-status" name="status" data-autosubmit>
          <option value="">Any status</option>
          {FILTERABLE_STATUSES.map((s) => (
            <option value={s} selected={props.filters.status === s}>
              {STATUS_LABELS[s]}
            </option>
          ))}
        </select>
      </div>
      <Button variant="secondary">Apply</Button>
    </form>
  );
}

/**
 * The table of monitors. Rows carry `id="monitor-<id>"` and `data-status` for live updates; writers get pause and
 * resume buttons (each a POST form with the CSRF token and the record's version), viewers none.
 */
export function MonitorTable(props: {
  base: string;
  monitors: readonly MonitorRecord[];
  now: Date;
  canWrite: boolean;
  csrf: string;
  /** Where a write returns to: this page with its filters. */
  back: string;
}) {
  const columns: Array<Column<MonitorRecord>> = [
    { header: 'Status', class: 'status', cell: (m) => <StatusBadge status={m.status} /> },
    {
      header: 'Name',
      class: 'name',
      cell: (m) => <a href={`${props.base}/monitors/${m.id}`}>{m.name}</a>,
    },
    { header: 'Type', class: 'type', cell: (m) => m.type.toUpperCase() },
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
      header: 'Last check',
      class: 'when',
      cell: (m) =>
        m.lastCheckedAt ? (
          <time datetime={m.lastCheckedAt} title={m.lastCheckedAt}>
            {relativeTime(new Date(m.lastCheckedAt), props.now)}
          </time>
        ) : (
          'Never'
        ),
    },
  ];
  if (props.canWrite)
    columns.push({
      header: 'Actions',
      hiddenHeader: true,
      class: 'actions',
      cell: (m) => (
        <PostForm action={`${props.base}/monitors/${m.id}/${m.enabled ? 'pause' : 'resume'}`} csrf={props.csrf}>
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
      rowAttrs={(m) => ({ 'data-status': m.status })}
    />
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
export function NoMonitors(props: { base: string; filtered: boolean }) {
  return props.filtered ? (
    <EmptyState title="No monitor matches" action={<a href={`${props.base}/monitors`}>Clear the filters</a>}>
      Try another name or status.
    </EmptyState>
  ) : (
    <EmptyState title="No monitors yet">
      Create one with the API (<code>POST /api/v1/monitors</code>), the CLI, or a <code>statusvane.yaml</code>; it shows
      up here with its status.
    </EmptyState>
  );
}
