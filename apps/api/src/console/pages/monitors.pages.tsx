import { z } from 'zod';
import { AppError, cursorSchema, encodeCursor, ValidationError } from '@statusvane/shared';
import { assertCan, can } from '../../services/auth/permissions.js';
import { countMonitors, monitorCountsQuerySchema } from '../../services/monitors/count-monitors.js';
import { deleteMonitor } from '../../services/monitors/delete-monitor.js';
import { getMonitor } from '../../services/monitors/get-monitor.js';
import { listMonitorUptimes } from '../../services/monitors/list-monitor-uptimes.js';
import { listMonitors, monitorListQuerySchema } from '../../services/monitors/list-monitors.js';
import { listResponseSparklines } from '../../services/monitors/list-response-sparklines.js';
import type { MonitorRecord } from '../../services/monitors/monitor-record.js';
import { updateMonitor } from '../../services/monitors/update-monitor.js';
import { Button, LinkButton } from '../../views/components/button.js';
import { PostForm } from '../../views/components/form.js';
import { StatusBadge } from '../../views/components/status-badge.js';
import { ConsoleLayout, type FlashMessage } from '../../views/layout.js';
import { definePage, type PageAnswer, type PageDef, type WorkspaceRequest } from '../define-page.js';
import { liveStatusStream } from '../monitors/live-status.js';
import {
  BulkBar,
  MonitorCounts,
  MonitorFilterForm,
  MonitorPager,
  MonitorTable,
  monitorsHref,
  NoMonitors,
  type MonitorFilters,
  type MonitorRowFigures,
} from '../monitors/monitor-list-view.js';

/** Monitors per page (§7). */
const PER_PAGE = 100;

const SINGLE_NOTICES: Record<string, string> = {
  paused: 'Monitor paused: no checks run until you resume it.',
  resumed: 'Monitor resumed: a check runs now.',
  deleted: 'Monitor deleted.',
};
const BULK_DONE: Record<string, string> = {
  'bulk-paused': 'paused',
  'bulk-resumed': 'resumed',
  'bulk-deleted': 'deleted',
};

function noticeOf(done: string | undefined, n: number | undefined, skipped: number | undefined): FlashMessage | null {
  if (!done) return null;
  if (SINGLE_NOTICES[done]) return { kind: 'notice', text: SINGLE_NOTICES[done] };
  const verb = BULK_DONE[done];
  if (!verb) return null;
  const count = n ?? 0;
  let text = `${count} monitor${count === 1 ? '' : 's'} ${verb}.`;
  if (skipped)
    text += ` ${skipped} changed while this ran and ${skipped === 1 ? 'was' : 'were'} left as ${skipped === 1 ? 'it was' : 'they were'}.`;
  return { kind: 'notice', text };
}

/** An empty field of the filter form (`?q=&status=`) means "no filter". */
const optional = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === '' ? undefined : v), schema.optional());
const SORTS = ['name', 'status', 'uptime24h', 'responseTime'].flatMap((k) => [k, `-${k}`]) as [string, ...string[]];

/** The page's query: strict like the API's (an unknown or repeated parameter is a 400 page). */
const pageQuerySchema = z
  .object({
    q: optional(z.string().trim().max(120)),
    status: optional(z.enum(['up', 'degraded', 'down', 'paused', 'maintenance', 'pending'])),
    type: optional(z.enum(['http', 'tcp', 'dns', 'heartbeat', 'api'])),
    meta: optional(z.string().trim().max(570)),
    sort: optional(z.enum(SORTS)),
    page: optional(z.coerce.number().int().min(1).max(100_000)),
    done: optional(z.string().max(20)),
    n: optional(z.coerce.number().int().min(0).max(100_000)),
    skipped: optional(z.coerce.number().int().min(0).max(100_000)),
  })
  .strict();

function parseQuery<T extends z.ZodType>(schema: T, query: unknown, what: string): z.output<T> {
  const parsed = schema.safeParse(query);
  if (!parsed.success)
    throw new ValidationError(
      what,
      parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    );
  return parsed.data;
}

/** `key=value` of the metadata filter, or the reason it is not one. */
function metadataFilter(meta: string | undefined): { key: string; value: string } | { error: string } | null {
  if (!meta) return null;
  const at = meta.indexOf('=');
  const key = at < 0 ? '' : meta.slice(0, at).trim();
  if (!key || key.length > 64) return { error: 'Write the filter as key=value, such as team=payments.' };
  return { key, value: meta.slice(at + 1).trim() };
}

/** The filters as GET /monitors takes them: the page reads through the API's own verbs and schemas. */
function apiFilters(filters: MonitorFilters, meta: { key: string; value: string } | null): Record<string, string> {
  const raw: Record<string, string> = {};
  if (filters.q) raw.q = filters.q;
  if (filters.status) raw.status = filters.status;
  if (filters.type) raw.type = filters.type;
  if (meta) raw[`metadata.${meta.key}`] = meta.value;
  return raw;
}

async function monitorsPage(req: WorkspaceRequest): Promise<PageAnswer> {
  const q = parseQuery(pageQuerySchema, req.query, 'This address has a filter the monitors page does not know.');
  const filters: MonitorFilters = {
    q: q.q || undefined,
    status: q.status,
    type: q.type,
    meta: q.meta || undefined,
    sort: q.sort,
    page: q.page ?? 1,
  };
  const meta = metadataFilter(filters.meta);
  const metaError = meta && 'error' in meta ? meta.error : undefined;
  const metaFilter = meta && 'key' in meta ? meta : null;
  const raw = apiFilters(filters, metaFilter);
  const { status: _status, ...withoutStatus } = raw;
  // The page's figures need the page's ids; the counts and the event log's end do not: they are read meanwhile.
  const pageWithFigures = async () => {
    const page = await listMonitors(req.deps, {
      ctx: req.ctx,
      input: monitorListQuerySchema.parse({
        ...raw,
        page: String(filters.page),
        perPage: String(PER_PAGE),
        ...(filters.sort ? { sort: filters.sort } : {}),
      }),
    });
    const ids = page.data.map((m) => m.id);
    const [uptimes, sparklines] = await Promise.all([
      // The page's records carry what accounting needs: the uptime seam reads none of them again.
      listMonitorUptimes(req.deps, {
        ctx: req.ctx,
        input: {
          monitors: page.data.map((m) => ({
            id: m.id,
            componentId: m.componentId,
            createdAt: new Date(m.createdAt),
            type: m.type,
            regions: m.regions,
          })),
          windows: ['24h'],
        },
      }),
      listResponseSparklines(req.deps, { ctx: req.ctx, input: { monitorIds: ids } }),
    ]);
    return { page, ids, uptimes, sparklines };
  };
  const [{ page, ids, uptimes, sparklines }, counts] = await Promise.all([
    pageWithFigures(),
    // The counts are the status filter's links: every other filter applies to them.
    countMonitors(req.deps, { ctx: req.ctx, input: monitorCountsQuerySchema.parse(withoutStatus) }),
  ]);
  // The live stream follows the page from where the event log ended before its reads (read with the session).
  const cursor = encodeCursor(req.session.logEnd);
  const figures = new Map<string, MonitorRowFigures>(
    ids.map((id) => [id, { uptime24h: uptimes.get(id)?.['24h'] ?? null, sparkline: sparklines.get(id)! }]),
  );
  const filtered = !!(filters.q || filters.status || filters.type || filters.meta);
  const canWrite = can(req.ctx.role, 'monitors:write');
  const back = monitorsHref(req.base, filters);
  return {
    status: metaError ? 400 : 200,
    view: (
      <ConsoleLayout
        chrome={req.chrome}
        title="Monitors"
        section="monitors"
        flash={metaError ? { kind: 'error', text: metaError } : noticeOf(q.done, q.n, q.skipped)}
      >
        <div class="page-header">
          <div>
            <h1>Monitors</h1>
            <p>
              {counts.total} monitor{counts.total === 1 ? '' : 's'} in {req.ctx.workspace.name}
              {filtered ? ' match these filters' : ''}
            </p>
          </div>
          {canWrite && (
            <LinkButton variant="primary" href={`${req.base}/monitors/new`}>
              New monitor
            </LinkButton>
          )}
        </div>
        <MonitorCounts base={req.base} counts={counts} filters={filters} />
        <MonitorFilterForm base={req.base} filters={filters} metaError={metaError} />
        <div data-live={`${req.base}/monitors/live`} data-after={cursor}>
          <div id="live-announcer" class="visually-hidden" aria-live="polite" />
          {page.data.length === 0 ? (
            <NoMonitors base={req.base} filtered={filtered} canWrite={canWrite} />
          ) : (
            <>
              {canWrite && <BulkBar base={req.base} back={back} canDelete={can(req.ctx.role, 'monitors:delete')} />}
              <MonitorTable
                base={req.base}
                monitors={page.data}
                figures={figures}
                filters={filters}
                now={req.now}
                canWrite={canWrite}
                csrf={req.csrf}
                back={back}
              />
              <MonitorPager base={req.base} filters={filters} pagination={page.pagination} shown={page.data.length} />
            </>
          )}
        </div>
      </ConsoleLayout>
    ),
  };
}

/** Where a write goes back to: a page of this workspace's monitors, else the list. */
export function backTo(req: WorkspaceRequest, back: string | undefined): string {
  return back &&
    (back === `${req.base}/monitors` ||
      back.startsWith(`${req.base}/monitors?`) ||
      back.startsWith(`${req.base}/monitors/`))
    ? back
    : `${req.base}/monitors`;
}
const withParams = (url: string, params: Record<string, string | number>) =>
  `${url}${url.includes('?') ? '&' : '?'}${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]))}`;

/** The form's `version` as If-Match (none given: no condition, as the API without the header). */
export function ifMatchOf(version: string | undefined): { ifMatch?: number[] } {
  const v = Number(version);
  return Number.isSafeInteger(v) && v > 0 ? { ifMatch: [v] } : {};
}

/**
 * A write from a row: the API's PATCH with `enabled`, the form's `version` as If-Match. A stale version (someone
 * changed the monitor since the page was drawn) answers 409 and says so.
 */
function toggle(enabled: boolean) {
  return async (req: WorkspaceRequest): Promise<PageAnswer> => {
    try {
      await updateMonitor(req.deps, {
        ctx: { ...req.ctx, ...ifMatchOf(req.form.version) },
        input: { id: req.params.id!, changes: { enabled } },
      });
    } catch (err) {
      if (err instanceof AppError && err.code === 'precondition_failed')
        throw new AppError('conflict', 'The monitor changed since the page was shown. Go back, reload and try again.');
      throw err;
    }
    return { redirect: withParams(backTo(req, req.form.back), { done: enabled ? 'resumed' : 'paused' }) };
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Bulk pause, resume and delete: a preview (GET, changes nothing) listing each monitor and what happens to it, then a
// confirmation (POST, CSRF, permission) carrying each monitor's version as seen in the preview.

const BULK_ACTIONS = {
  pause: { permission: 'monitors:write', verb: 'Pause', done: 'bulk-paused' },
  resume: { permission: 'monitors:write', verb: 'Resume', done: 'bulk-resumed' },
  delete: { permission: 'monitors:delete', verb: 'Delete', done: 'bulk-deleted' },
} as const;
type BulkAction = keyof typeof BULK_ACTIONS;

/** Bulk requests name at most a page of monitors. */
const ids = z
  .union([z.uuid(), z.array(z.uuid()).max(PER_PAGE)])
  .transform((v) => [...new Set(Array.isArray(v) ? v : [v])]);
const previewQuerySchema = z
  .object({
    action: z.enum(['pause', 'resume', 'delete']),
    id: ids.optional(),
    back: z.string().max(2000).optional(),
  })
  .strict();

/** What a bulk action does to one monitor, in words. */
function changeOf(action: BulkAction, m: MonitorRecord): string | null {
  if (action === 'delete') return 'Deleted, with its check results and response-time history (incidents are kept)';
  if (action === 'pause') return m.enabled ? 'Paused: no checks until resumed' : null;
  return m.enabled ? null : 'Resumed: checked at once, then on its schedule';
}

/** The monitors still there of those named, in the order given. */
async function currentRecords(req: WorkspaceRequest, wanted: readonly string[]): Promise<MonitorRecord[]> {
  const found = await Promise.all(
    wanted.map((id) =>
      getMonitor(req.deps, { ctx: req.ctx, input: { id } }).catch((err: unknown) => {
        if (err instanceof AppError && err.code === 'not_found') return null;
        throw err;
      }),
    ),
  );
  return found.filter((m): m is MonitorRecord => m !== null);
}

function BulkPreview(props: {
  req: WorkspaceRequest;
  action: BulkAction;
  monitors: readonly MonitorRecord[];
  back: string;
  stale?: boolean;
}) {
  const { req, action, monitors } = props;
  const a = BULK_ACTIONS[action];
  const changing = monitors.filter((m) => changeOf(action, m) !== null);
  const title = `${a.verb} ${changing.length} monitor${changing.length === 1 ? '' : 's'}?`;
  return (
    <ConsoleLayout
      chrome={req.chrome}
      title={title}
      section="monitors"
      flash={
        props.stale
          ? {
              kind: 'error',
              text: 'Some of these monitors changed since the preview, so nothing was done. This is how they are now: confirm again if it still applies.',
            }
          : null
      }
    >
      <div class="page-header">
        <div>
          <h1>{title}</h1>
          <p>Nothing changes until you confirm. This is what will happen:</p>
        </div>
      </div>
      <table class="table stack preview">
        <caption class="visually-hidden">The monitors and what happens to each</caption>
        <thead>
          <tr>
            <th scope="col">Monitor</th>
            <th scope="col">Now</th>
            <th scope="col">After</th>
          </tr>
        </thead>
        <tbody>
          {monitors.map((m) => {
            const change = changeOf(action, m);
            return (
              <tr class={change ? undefined : 'unchanged'}>
                <td class="name" data-label="Monitor">
                  {m.name}
                </td>
                <td data-label="Now">
                  <StatusBadge status={m.status} />
                </td>
                <td data-label="After">
                  {change ?? <span class="muted">No change: already {m.enabled ? 'running' : 'paused'}</span>}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <PostForm action={`${req.base}/monitors/bulk/${action}`} csrf={req.csrf} class="form-actions">
        <input type="hidden" name="items" value={changing.map((m) => `${m.id}:${m.version}`).join(',')} />
        <input type="hidden" name="back" value={props.back} />
        {changing.length > 0 && (
          <Button variant={action === 'delete' ? 'danger' : 'primary'}>
            {a.verb} {changing.length} monitor{changing.length === 1 ? '' : 's'}
          </Button>
        )}
        <a href={props.back}>Cancel</a>
      </PostForm>
    </ConsoleLayout>
  );
}

async function bulkPreview(req: WorkspaceRequest): Promise<PageAnswer> {
  const q = parseQuery(previewQuerySchema, req.query, 'This bulk action is not one the console knows.');
  assertCan(req.ctx.role, BULK_ACTIONS[q.action].permission);
  const back = backTo(req, q.back);
  const monitors = await currentRecords(req, q.id ?? []);
  if (monitors.length === 0)
    throw new ValidationError('Tick at least one monitor in the list, then choose the action.', [
      { path: 'id', message: 'no monitor selected' },
    ]);
  return { view: <BulkPreview req={req} action={q.action} monitors={monitors} back={back} /> };
}

/** One `<id>:<version>` of the confirmation form's `items` (comma-separated). */
const ITEM = /^([0-9a-f-]{36}):(\d{1,9})$/;

function bulkConfirm(action: BulkAction) {
  return async (req: WorkspaceRequest): Promise<PageAnswer> => {
    const items = (req.form.items ?? '').split(',').flatMap((v) => {
      const m = ITEM.exec(v);
      return m ? [{ id: m[1]!, version: Number(m[2]) }] : [];
    });
    const back = backTo(req, req.form.back);
    if (items.length === 0 || items.length > PER_PAGE)
      throw new ValidationError('Nothing to confirm: choose the monitors again.', [{ path: 'items', message: 'none' }]);
    // Every version as the preview showed it, or nothing is done: the preview again, with the monitors as they are.
    const current = await currentRecords(
      req,
      items.map((i) => i.id),
    );
    const byId = new Map(current.map((m) => [m.id, m]));
    if (items.some((i) => byId.get(i.id)?.version !== i.version))
      return {
        status: 409,
        view: <BulkPreview req={req} action={action} monitors={current} back={back} stale />,
      };
    let done = 0;
    let skipped = 0;
    for (const item of items) {
      const ctx = { ...req.ctx, ifMatch: [item.version] };
      try {
        if (action === 'delete') await deleteMonitor(req.deps, { ctx, input: { id: item.id } });
        else await updateMonitor(req.deps, { ctx, input: { id: item.id, changes: { enabled: action === 'resume' } } });
        done++;
      } catch (err) {
        // Changed (or deleted) between the check above and its turn: left as it is, and said so.
        if (err instanceof AppError && (err.code === 'precondition_failed' || err.code === 'not_found')) skipped++;
        else throw err;
      }
    }
    return {
      redirect: withParams(back.includes('/monitors/') ? `${req.base}/monitors` : back, {
        done: BULK_ACTIONS[action].done,
        n: done,
        ...(skipped ? { skipped } : {}),
      }),
    };
  };
}

// ---------------------------------------------------------------------------------------------------------------

const liveQuerySchema = z.object({ after: cursorSchema.optional() }).strict();

/** The monitors list, its live status stream, bulk actions, and pause and resume from its rows. */
export function monitorPages(): PageDef[] {
  return [
    definePage({
      method: 'get',
      path: '/',
      access: 'workspace',
      handler: async (req) => ({ redirect: `${req.base}/monitors` }),
    }),
    // Kept briefly (ADR 0023): a page of 100 rows costs milliseconds to read and render, a reload of it microseconds.
    definePage({ method: 'get', path: '/monitors', access: 'workspace', kept: true, handler: monitorsPage }),
    definePage({
      method: 'get',
      path: '/monitors/live',
      access: 'workspace',
      handler: async (req) => {
        const { after } = parseQuery(liveQuerySchema, req.query, 'Not a position in the event log.');
        return {
          stream: liveStatusStream(req, after ?? req.session.logEnd),
        };
      },
    }),
    definePage({ method: 'get', path: '/monitors/bulk', access: 'workspace', handler: bulkPreview }),
    ...(Object.keys(BULK_ACTIONS) as BulkAction[]).map((action) =>
      definePage({
        method: 'post',
        path: `/monitors/bulk/${action}`,
        access: 'workspace',
        permission: BULK_ACTIONS[action].permission,
        handler: bulkConfirm(action),
      }),
    ),
    definePage({
      method: 'post',
      path: '/monitors/:id/pause',
      access: 'workspace',
      permission: 'monitors:write',
      handler: toggle(false),
    }),
    definePage({
      method: 'post',
      path: '/monitors/:id/resume',
      access: 'workspace',
      permission: 'monitors:write',
      handler: toggle(true),
    }),
  ];
}
