import { z } from 'zod';
import { AppError, ValidationError } from '@statusvane/shared';
import { can } from '../../services/auth/permissions.js';
import { countMonitors } from '../../services/monitors/count-monitors.js';
import { listMonitors } from '../../services/monitors/list-monitors.js';
import { monitorListQuerySchema } from '../../services/monitors/monitor-filters.js';
import { updateMonitor } from '../../services/monitors/update-monitor.js';
import { ConsoleLayout, type FlashMessage } from '../../views/layout.js';
import { definePage, type PageAnswer, type PageDef, type WorkspaceRequest } from '../define-page.js';
import {
  FILTERABLE_STATUSES,
  MonitorCounts,
  MonitorFilterForm,
  MonitorPager,
  MonitorTable,
  monitorsHref,
  NoMonitors,
  type MonitorFilters,
} from '../monitors/monitor-list-view.js';

/** Monitors per page (§7). */
const PER_PAGE = 100;

const NOTICES: Record<string, FlashMessage> = {
  paused: { kind: 'notice', text: 'Monitor paused: no checks run until you resume it.' },
  resumed: { kind: 'notice', text: 'Monitor resumed: a check runs now.' },
};

/** An empty field of the filter form (`?q=&status=`) means "no filter". */
const optional = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === '' ? undefined : v), schema.optional());

/** The page's query: strict like the API's (an unknown or repeated parameter is a 400 page). */
const pageQuerySchema = z
  .object({
    q: optional(z.string().trim().max(120)),
    status: optional(z.enum(FILTERABLE_STATUSES)),
    page: optional(z.coerce.number().int().min(1).max(100_000)),
    done: optional(z.enum(['paused', 'resumed'])),
  })
  .strict();

function parseFilters(query: Record<string, unknown>) {
  const parsed = pageQuerySchema.safeParse(query);
  if (!parsed.success)
    throw new ValidationError(
      'This address has a filter the monitors page does not know.',
      parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
    );
  const { q, status, page, done } = parsed.data;
  return { filters: { q: q || undefined, status, page: page ?? 1 } satisfies MonitorFilters, done };
}

/** The same filters, as GET /monitors takes them (paused = disabled): the page reads through the API's own verb. */
function listQuery(filters: MonitorFilters) {
  const raw: Record<string, string> = { page: String(filters.page), perPage: String(PER_PAGE) };
  if (filters.q) raw.q = filters.q;
  if (filters.status === 'paused') raw.enabled = 'false';
  else if (filters.status) raw.status = filters.status;
  return monitorListQuerySchema.parse(raw);
}

async function monitorsPage(req: WorkspaceRequest): Promise<PageAnswer> {
  const { filters, done } = parseFilters(req.query);
  const [page, counts] = await Promise.all([
    listMonitors(req.deps, { ctx: req.ctx, input: listQuery(filters) }),
    countMonitors(req.deps, { ctx: req.ctx, input: { q: filters.q } }),
  ]);
  const filtered = !!(filters.q || filters.status);
  return {
    view: (
      <ConsoleLayout chrome={req.chrome} title="Monitors" section="monitors" flash={done ? NOTICES[done] : null}>
        <div class="page-header">
          <div>
            <h1>Monitors</h1>
            <p>
              {counts.total} monitor{counts.total === 1 ? '' : 's'} in {req.ctx.workspace.name}
            </p>
          </div>
        </div>
        <MonitorCounts base={req.base} counts={counts} filters={filters} />
        <MonitorFilterForm base={req.base} filters={filters} />
        {page.data.length === 0 ? (
          <NoMonitors base={req.base} filtered={filtered} />
        ) : (
          <>
            <MonitorTable
              base={req.base}
              monitors={page.data}
              now={req.now}
              canWrite={can(req.ctx.role, 'monitors:write')}
              csrf={req.csrf}
              back={monitorsHref(req.base, filters)}
            />
            <MonitorPager base={req.base} filters={filters} pagination={page.pagination} shown={page.data.length} />
          </>
        )}
      </ConsoleLayout>
    ),
  };
}

/**
 * A write from a row: the API's PATCH with `enabled`, the form's `version` as If-Match. A stale version (someone
 * changed the monitor since the page was drawn) comes back to the list with the current state and says so.
 */
function toggle(enabled: boolean) {
  return async (req: WorkspaceRequest): Promise<PageAnswer> => {
    const version = Number(req.form.version);
    const back = req.form.back?.startsWith(`${req.base}/monitors`) ? req.form.back : `${req.base}/monitors`;
    try {
      await updateMonitor(req.deps, {
        ctx: { ...req.ctx, ...(Number.isSafeInteger(version) && version > 0 ? { ifMatch: [version] } : {}) },
        input: { id: req.params.id!, changes: { enabled } },
      });
    } catch (err) {
      if (err instanceof AppError && err.code === 'precondition_failed')
        throw new AppError('conflict', 'The monitor changed since the page was shown. Go back, reload and try again.');
      throw err;
    }
    const sep = back.includes('?') ? '&' : '?';
    return { redirect: `${back}${sep}done=${enabled ? 'resumed' : 'paused'}` };
  };
}

/** The monitors list (counts, search, status filter, table), and pause and resume from its rows. */
export function monitorPages(): PageDef[] {
  return [
    definePage({
      method: 'get',
      path: '/',
      access: 'workspace',
      handler: async (req) => ({ redirect: `${req.base}/monitors` }),
    }),
    definePage({ method: 'get', path: '/monitors', access: 'workspace', handler: monitorsPage }),
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
