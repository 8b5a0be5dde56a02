import { createMaintenanceSchema, MAINTENANCE_STATUSES, updateMaintenanceSchema } from '@statusvane/shared';
import { z } from 'zod';
import { can } from '../../services/auth/permissions.js';
import { listComponents } from '../../services/components/list-components.js';
import { createMaintenance, createMaintenanceChecks } from '../../services/maintenance/create-maintenance.js';
import { deleteMaintenance } from '../../services/maintenance/delete-maintenance.js';
import { getMaintenance } from '../../services/maintenance/get-maintenance.js';
import { listMaintenance, maintenanceListQuerySchema } from '../../services/maintenance/list-maintenance.js';
import type { MaintenanceRecord } from '../../services/maintenance/maintenance-record.js';
import { updateMaintenance, updateMaintenanceChecks } from '../../services/maintenance/update-maintenance.js';
import { judgeInput } from '../../services/validation.js';
import { Button, LinkButton } from '../../views/components/button.js';
import { EmptyState } from '../../views/components/empty-state.js';
import { Flash } from '../../views/components/flash.js';
import { Pager } from '../../views/components/pager.js';
import { PostForm, SelectField, VersionField } from '../../views/components/form.js';
import { DataTable, type Column } from '../../views/components/table.js';
import { dateTimeUtc } from '../../views/format.js';
import { ConsoleLayout, type FlashMessage } from '../../views/layout.js';
import { definePage, type PageAnswer, type PageDef, type WorkspaceRequest } from '../define-page.js';
import {
  MAINTENANCE_FIELDS,
  MaintenanceBadge,
  maintenanceBodyOf,
  MaintenanceFields,
  maintenanceValuesOf,
} from '../maintenance/maintenance-form.js';
import { answerForm, queryOf, readAll, withFormVersion, type FormIssues, staleFlash } from '../page-forms.js';

const NOTICES: Record<string, FlashMessage> = {
  created: { kind: 'notice', text: 'Maintenance window scheduled.' },
  saved: { kind: 'notice', text: 'Maintenance window saved.' },
  start: { kind: 'notice', text: 'Maintenance started now.' },
  complete: { kind: 'notice', text: 'Maintenance completed.' },
  cancel: { kind: 'notice', text: 'Maintenance cancelled.' },
  deleted: { kind: 'notice', text: 'Maintenance window deleted.' },
};
const listQuery = z
  .object({
    state: z.enum(['', ...MAINTENANCE_STATUSES]).optional(),
    page: z.coerce.number().int().min(1).max(100_000).optional(),
    done: z.enum(['deleted']).optional(),
  })
  .strict();
const pageQuery = z.object({ done: z.enum(['created', 'saved', 'start', 'complete', 'cancel']).optional() }).strict();
const stale = staleFlash('This window');
/** What each action may follow (the API's table: anything else is its 409). */
const ACTIONS: Array<{ action: 'start' | 'complete' | 'cancel'; label: string; from: MaintenanceRecord['status'][] }> =
  [
    { action: 'start', label: 'Start now', from: ['scheduled'] },
    { action: 'complete', label: 'Complete now', from: ['in_progress'] },
    { action: 'cancel', label: 'Cancel', from: ['scheduled', 'in_progress'] },
  ];

const when = (m: MaintenanceRecord) => `${dateTimeUtc(new Date(m.startsAt))} → ${dateTimeUtc(new Date(m.endsAt))}`;

/** Windows: in progress and scheduled first (the list's order: newest start first), with a state filter. */
async function maintenanceListPage(req: WorkspaceRequest): Promise<PageAnswer> {
  const q = queryOf(listQuery, req.query, 'maintenance');
  const page = q.page ?? 1;
  const list = await listMaintenance(req.deps, {
    ctx: req.ctx,
    input: maintenanceListQuerySchema.parse({
      page: String(page),
      perPage: '50',
      ...(q.state ? { state: q.state } : {}),
    }),
  });
  const manager = can(req.ctx.role, 'statusPages:manage');
  const columns: Array<Column<MaintenanceRecord>> = [
    { header: 'State', class: 'status', cell: (m) => <MaintenanceBadge status={m.status} /> },
    { header: 'Window', class: 'name', cell: (m) => <a href={`${req.base}/maintenance/${m.id}`}>{m.title}</a> },
    { header: 'When', class: 'when', cell: (m) => when(m) },
    {
      header: 'Components',
      cell: (m) => (m.components.length ? m.components.map((c) => c.name).join(', ') : 'Whole workspace'),
    },
  ];
  const p = list.pagination;
  const href = (n: number) =>
    `${req.base}/maintenance?${new URLSearchParams({ ...(q.state ? { state: q.state } : {}), page: String(n) })}`;
  return {
    view: (
      <ConsoleLayout
        chrome={req.chrome}
        title="Maintenance"
        section="maintenance"
        flash={q.done ? NOTICES[q.done] : null}
      >
        <div class="page-header">
          <div>
            <h1>Maintenance</h1>
            <p>Planned work: shown on status pages, and the monitors it covers page nobody while it runs.</p>
          </div>
          {manager && (
            <LinkButton variant="primary" href={`${req.base}/maintenance/new`}>
              Schedule maintenance
            </LinkButton>
          )}
        </div>
        <form class="filters" method="get" action={`${req.base}/maintenance`} aria-label="Filter maintenance">
          <div class="status-select">
            <SelectField
              name="state"
              label="State"
              value={q.state ?? ''}
              autosubmit
              options={[
                { value: '', label: 'Every state' },
                { value: 'in_progress', label: 'In progress' },
                { value: 'scheduled', label: 'Scheduled' },
                { value: 'completed', label: 'Completed' },
                { value: 'cancelled', label: 'Cancelled' },
              ]}
            />
          </div>
          <div class="field">
            <Button variant="secondary">Apply</Button>
          </div>
        </form>
        {list.data.length === 0 ? (
          <EmptyState
            title={q.state ? 'No window in this state' : 'No maintenance yet'}
            action={manager && !q.state ? <a href={`${req.base}/maintenance/new`}>Schedule maintenance</a> : undefined}
          />
        ) : (
          <DataTable
            caption="Maintenance windows"
            captionHidden
            class="maintenance"
            columns={columns}
            rows={list.data}
            rowId={(m) => `maintenance-${m.id}`}
            rowAttrs={(m) => ({ 'data-status': m.status })}
          />
        )}
        <Pager label="maintenance" pagination={p} href={href} />
      </ConsoleLayout>
    ),
  };
}

const components = (req: WorkspaceRequest) => readAll((q) => listComponents(req.deps, { ctx: req.ctx, input: q }));

/** A new window: starts in an hour for an hour unless changed. */
async function newMaintenancePage(
  req: WorkspaceRequest,
  opts: { status?: number; values?: Record<string, string>; issues?: FormIssues } = {},
): Promise<PageAnswer> {
  const start = new Date(Math.ceil(req.now.getTime() / 3_600_000) * 3_600_000 + 3_600_000);
  const values = opts.values ?? {
    startsAt: start.toISOString().slice(0, 16),
    endsAt: new Date(start.getTime() + 3_600_000).toISOString().slice(0, 16),
  };
  return {
    status: opts.status ?? 200,
    view: (
      <ConsoleLayout chrome={req.chrome} title="Schedule maintenance" section="maintenance">
        <p class="breadcrumb">
          <a href={`${req.base}/maintenance`}>Maintenance</a>
        </p>
        <div class="page-header">
          <div>
            <h1>Schedule maintenance</h1>
          </div>
        </div>
        {opts.issues && opts.issues.rest.length > 0 && <Flash kind="error">{opts.issues.rest.join(' ')}</Flash>}
        <section class="card form-card">
          <PostForm action={`${req.base}/maintenance/new`} csrf={req.csrf} label="Schedule maintenance">
            <MaintenanceFields values={values} errors={opts.issues?.byField ?? {}} components={await components(req)} />
            <div class="form-actions">
              <Button>Schedule</Button>
              <a href={`${req.base}/maintenance`}>Cancel</a>
            </div>
          </PostForm>
        </section>
      </ConsoleLayout>
    ),
  };
}

/** A window: its state and actions; its edit form while it is not history. */
async function maintenancePage(
  req: WorkspaceRequest,
  opts: { status?: number; flash?: FlashMessage; values?: Record<string, string>; issues?: FormIssues } = {},
): Promise<PageAnswer> {
  const done = queryOf(pageQuery, req.query, 'maintenance window').done;
  const m = await getMaintenance(req.deps, { ctx: req.ctx, input: { id: req.params.id! } });
  const manager = can(req.ctx.role, 'statusPages:manage');
  const action = `${req.base}/maintenance/${m.id}`;
  const final = m.status === 'completed' || m.status === 'cancelled';
  return {
    status: opts.status ?? 200,
    view: (
      <ConsoleLayout
        chrome={req.chrome}
        title={m.title}
        section="maintenance"
        flash={opts.flash ?? (done ? NOTICES[done] : null)}
      >
        <p class="breadcrumb">
          <a href={`${req.base}/maintenance`}>Maintenance</a>
        </p>
        <div class="page-header">
          <div>
            <h1>{m.title}</h1>
            <p class="meta-line">
              <MaintenanceBadge status={m.status} /> <span>{when(m)}</span>
              <span>{m.components.length ? m.components.map((c) => c.name).join(', ') : 'Whole workspace'}</span>
            </p>
          </div>
          {manager && (
            <div class="actions-row">
              {ACTIONS.filter((a) => a.from.includes(m.status)).map((a) => (
                <PostForm action={`${action}/${a.action}`} csrf={req.csrf}>
                  <VersionField version={m.version} />
                  <Button variant={a.action === 'cancel' ? 'secondary' : 'primary'}>{a.label}</Button>
                </PostForm>
              ))}
              <PostForm action={`${action}/delete`} csrf={req.csrf}>
                <VersionField version={m.version} />
                <Button variant="danger" confirm="Delete this window? It disappears from the status pages at once.">
                  Delete
                </Button>
              </PostForm>
            </div>
          )}
        </div>
        {m.body && (
          <section class="card">
            <h2>What happens</h2>
            <p class="update-message">{m.body}</p>
          </section>
        )}
        {opts.issues && opts.issues.rest.length > 0 && <Flash kind="error">{opts.issues.rest.join(' ')}</Flash>}
        {manager && !final && (
          <section class="card form-card" aria-labelledby="edit-h">
            <h2 id="edit-h">Edit</h2>
            <PostForm action={action} csrf={req.csrf} label="Edit the window">
              <VersionField version={m.version} />
              <MaintenanceFields
                values={opts.values ?? maintenanceValuesOf(m)}
                errors={opts.issues?.byField ?? {}}
                components={await components(req)}
              />
              <div class="form-actions">
                <Button>Save</Button>
              </div>
            </PostForm>
          </section>
        )}
        {final && <p class="muted">A {m.status} window is history: it can no longer be edited, only deleted.</p>}
      </ConsoleLayout>
    ),
  };
}

/** A write of a window from its page: done, or the page again (issues 400/409, stale 409 with the current values). */
function windowWrite(
  verb: string,
  run: (req: WorkspaceRequest) => Promise<unknown>,
  done: (req: WorkspaceRequest) => string,
) {
  return definePage({
    method: 'post',
    path: `/maintenance/:id${verb ? `/${verb}` : ''}`,
    access: 'workspace',
    permission: 'statusPages:manage',
    handler: (req) =>
      answerForm(
        async () => {
          await run(req);
          return { redirect: done(req) };
        },
        {
          fields: MAINTENANCE_FIELDS,
          stale: () => maintenancePage(req, { status: 409, flash: stale }),
          again: (issues, status) =>
            maintenancePage(req, { status, ...(verb === '' ? { values: req.form } : {}), issues }),
        },
      ),
  });
}

/** Maintenance: the list, scheduling, editing, start, complete, cancel and delete. */
export function maintenancePages(): PageDef[] {
  const ctxOf = (req: WorkspaceRequest) => withFormVersion(req.ctx, req.form);
  const update = (req: WorkspaceRequest, body: unknown) =>
    judgeInput(
      updateMaintenanceSchema,
      updateMaintenanceChecks,
      req.deps,
      { ctx: req.ctx, params: { id: req.params.id! } },
      body,
    ).then((changes) => updateMaintenance(req.deps, { ctx: ctxOf(req), input: { id: req.params.id!, changes } }));
  return [
    definePage({ method: 'get', path: '/maintenance', access: 'workspace', handler: maintenanceListPage }),
    definePage({
      method: 'get',
      path: '/maintenance/new',
      access: 'workspace',
      handler: async (req) =>
        can(req.ctx.role, 'statusPages:manage') ? newMaintenancePage(req) : { redirect: `${req.base}/maintenance` },
    }),
    definePage({
      method: 'post',
      path: '/maintenance/new',
      access: 'workspace',
      permission: 'statusPages:manage',
      handler: (req) =>
        answerForm(
          async () => {
            const input = await judgeInput(
              createMaintenanceSchema,
              createMaintenanceChecks,
              req.deps,
              { ctx: req.ctx },
              maintenanceBodyOf(req.form),
            );
            const created = await createMaintenance(req.deps, { ctx: req.ctx, input });
            return { redirect: `${req.base}/maintenance/${created.id}?done=created` };
          },
          {
            fields: MAINTENANCE_FIELDS,
            again: (issues, status) => newMaintenancePage(req, { status, values: req.form, issues }),
          },
        ),
    }),
    definePage({
      method: 'get',
      path: '/maintenance/:id',
      access: 'workspace',
      handler: (req) => maintenancePage(req),
    }),
    windowWrite(
      '',
      (req) => update(req, maintenanceBodyOf(req.form)),
      (req) => `${req.base}/maintenance/${req.params.id!}?done=saved`,
    ),
    ...ACTIONS.map(({ action }) =>
      windowWrite(
        action,
        (req) => update(req, { status: action }),
        (req) => `${req.base}/maintenance/${req.params.id!}?done=${action}`,
      ),
    ),
    windowWrite(
      'delete',
      (req) => deleteMaintenance(req.deps, { ctx: ctxOf(req), input: { id: req.params.id! } }),
      (req) => `${req.base}/maintenance?done=deleted`,
    ),
  ];
}
