import { z } from 'zod';
import { incidentUpdateInputSchema, manualIncidentInputSchema, parseOrThrow } from '@statusvane/shared';
import { can } from '../../services/auth/permissions.js';
import { listComponents } from '../../services/components/list-components.js';
import { acknowledgeIncident } from '../../services/incidents/acknowledge-incident.js';
import { createIncidentUpdate } from '../../services/incidents/create-incident-update.js';
import { createManualIncident, manualIncidentChecks } from '../../services/incidents/create-manual-incident.js';
import { getIncidentEscalation } from '../../services/incidents/get-escalation.js';
import { getIncident } from '../../services/incidents/get-incident.js';
import { INCIDENT_IMPACTS } from '../../services/incidents/incident-record.js';
import { listIncidentUpdates } from '../../services/incidents/list-incident-updates.js';
import { listIncidents, incidentListQuerySchema } from '../../services/incidents/list-incidents.js';
import { resolveIncident } from '../../services/incidents/resolve-incident.js';
import { getMonitor } from '../../services/monitors/get-monitor.js';
import { judgeInput } from '../../services/validation.js';
import { Button, LinkButton } from '../../views/components/button.js';
import {
  CheckboxGroup,
  Field,
  PostForm,
  readCheckedValues,
  SelectField,
  TextAreaField,
} from '../../views/components/form.js';
import { Flash } from '../../views/components/flash.js';
import { ConsoleLayout, type FlashMessage } from '../../views/layout.js';
import { definePage, type PageAnswer, type PageDef, type WorkspaceRequest } from '../define-page.js';
import {
  EscalationPanel,
  ImpactTag,
  IncidentActions,
  IncidentBadge,
  IncidentFilterForm,
  IncidentPager,
  IncidentTable,
  NoIncidents,
  Timeline,
  UpdateForm,
  When,
  type IncidentFilters,
} from '../incidents/incident-views.js';
import { answerForm, formIssuesOf, given, queryOf, readAll } from '../page-forms.js';

const NOTICES: Record<string, FlashMessage> = {
  acknowledged: { kind: 'notice', text: 'Acknowledged: the escalation has stopped.' },
  resolved: { kind: 'notice', text: 'Resolved.' },
  updated: { kind: 'notice', text: 'Update posted.' },
  declared: { kind: 'notice', text: 'Incident declared.' },
};
const DAY_MS = 86_400_000;
const PER_PAGE = 50;

const listQuery = z
  .object({
    status: z.enum(['', 'open', 'acknowledged', 'resolved']).optional(),
    days: z.enum(['7', '30', '90']).optional(),
    page: z.coerce.number().int().min(1).max(100_000).optional(),
    done: z.enum(['acknowledged', 'resolved', 'updated', 'declared']).optional(),
  })
  .strict();

/** Open ones first (every one, whenever it started), then those resolved in the period; or one status alone. */
async function incidentsPage(req: WorkspaceRequest): Promise<PageAnswer> {
  const q = queryOf(listQuery, req.query, 'incidents');
  const filters: IncidentFilters = {
    status: q.status || undefined,
    days: Number(q.days ?? 7) as IncidentFilters['days'],
    page: q.page ?? 1,
  };
  const since = new Date(req.now.getTime() - filters.days * DAY_MS).toISOString();
  const list = (status: string, page: number, perPage: number, dated: boolean) =>
    listIncidents(req.deps, {
      ctx: req.ctx,
      input: incidentListQuerySchema.parse({
        status,
        page: String(page),
        perPage: String(perPage),
        ...(dated ? { startedAfter: since } : {}),
      }),
    });
  const canWrite = can(req.ctx.role, 'incidents:respond');
  const tables = filters.status
    ? [{ caption: '', page: await list(filters.status, filters.page, PER_PAGE, filters.status === 'resolved') }]
    : [
        { caption: 'Open', page: await list('open,acknowledged', 1, 250, false) },
        {
          caption: `Resolved in the last ${filters.days} days`,
          page: await list('resolved', filters.page, PER_PAGE, true),
        },
      ];
  const total = tables.reduce((n, t) => n + t.page.pagination.total, 0);
  return {
    view: (
      <ConsoleLayout chrome={req.chrome} title="Incidents" section="incidents" flash={q.done ? NOTICES[q.done] : null}>
        <div class="page-header">
          <div>
            <h1>Incidents</h1>
            <p>What failed, who is on it, and how it ended.</p>
          </div>
          {canWrite && (
            <LinkButton href={`${req.base}/incidents/new`} variant="primary">
              Declare an incident
            </LinkButton>
          )}
        </div>
        <IncidentFilterForm base={req.base} filters={filters} />
        {total === 0 ? (
          <NoIncidents base={req.base} filtered={!!filters.status || filters.days !== 7} canWrite={canWrite} />
        ) : (
          tables.map((t) =>
            t.page.data.length === 0 && t.caption ? (
              <section class="list-section">
                <h2>{t.caption}</h2>
                <p class="muted">None.</p>
              </section>
            ) : (
              <section class="list-section">
                {t.caption && <h2>{t.caption}</h2>}
                <IncidentTable
                  base={req.base}
                  incidents={t.page.data}
                  now={req.now}
                  caption={t.caption || 'Incidents'}
                />
                {t.caption !== 'Open' && (
                  <IncidentPager base={req.base} filters={filters} pagination={t.page.pagination} />
                )}
              </section>
            ),
          )
        )}
      </ConsoleLayout>
    ),
  };
}

/** An incident's page: its state, actions, timeline, escalation and the update form. */
async function incidentPage(
  req: WorkspaceRequest,
  opts: {
    status?: number;
    values?: Record<string, string>;
    errors?: Record<string, string>;
    flash?: FlashMessage;
  } = {},
): Promise<PageAnswer> {
  const id = req.params.id!;
  const done = typeof req.query.done === 'string' ? req.query.done : undefined;
  const [incident, updates, escalation] = await Promise.all([
    getIncident(req.deps, { ctx: req.ctx, input: { id } }),
    listIncidentUpdates(req.deps, { ctx: req.ctx, input: { id } }),
    getIncidentEscalation(req.deps, { ctx: req.ctx, input: { id } }),
  ]);
  const monitor = incident.monitorId
    ? await getMonitor(req.deps, { ctx: req.ctx, input: { id: incident.monitorId } }).catch(() => null)
    : null;
  const canWrite = can(req.ctx.role, 'incidents:respond');
  const action = `${req.base}/incidents/${incident.id}`;
  return {
    status: opts.status ?? 200,
    view: (
      <ConsoleLayout
        chrome={req.chrome}
        title={incident.title}
        section="incidents"
        flash={opts.flash ?? (done ? NOTICES[done] : null)}
      >
        <p class="breadcrumb">
          <a href={`${req.base}/incidents`}>Incidents</a>
        </p>
        <div class="page-header">
          <div>
            <h1>{incident.title}</h1>
            <p class="meta-line">
              <IncidentBadge status={incident.status} /> <ImpactTag impact={incident.impact} />{' '}
              <span>
                Started <When at={incident.startedAt} now={req.now} />
              </span>
              {monitor ? (
                <span>
                  Monitor <a href={`${req.base}/monitors/${monitor.id}`}>{monitor.name}</a>
                </span>
              ) : incident.source === 'manual' ? (
                <span>Declared by hand</span>
              ) : null}
              {incident.acknowledgedBy && <span>Acknowledged by {incident.acknowledgedBy.name}</span>}
            </p>
          </div>
          {canWrite && <IncidentActions action={action} csrf={req.csrf} incident={incident} />}
        </div>
        <div class="two-columns">
          <section class="card" aria-labelledby="timeline-h">
            <h2 id="timeline-h">Timeline</h2>
            <Timeline incident={incident} updates={updates} escalation={escalation} now={req.now} />
          </section>
          <div>
            <EscalationPanel escalation={escalation} />
            {canWrite && (
              <UpdateForm
                action={`${action}/updates`}
                csrf={req.csrf}
                values={opts.values ?? {}}
                errors={opts.errors ?? {}}
              />
            )}
          </div>
        </div>
      </ConsoleLayout>
    ),
  };
}

/** The manual incident form; `issues` and `values` after a refused create. */
async function newIncidentPage(
  req: WorkspaceRequest,
  opts: {
    status?: number;
    values?: Record<string, string>;
    checked?: string[];
    issues?: ReturnType<typeof formIssuesOf>;
  } = {},
): Promise<PageAnswer> {
  const components = await readAll((query) => listComponents(req.deps, { ctx: req.ctx, input: query }));
  const v = opts.values ?? {};
  const errors = opts.issues?.byField ?? {};
  return {
    status: opts.status ?? 200,
    view: (
      <ConsoleLayout chrome={req.chrome} title="Declare an incident" section="incidents">
        <p class="breadcrumb">
          <a href={`${req.base}/incidents`}>Incidents</a>
        </p>
        <div class="page-header">
          <div>
            <h1>Declare an incident</h1>
            <p>For what no monitor caught: it shows on the status pages of the components it affects.</p>
          </div>
        </div>
        {opts.issues && opts.issues.rest.length > 0 && <Flash kind="error">{opts.issues.rest.join(' ')}</Flash>}
        <section class="card form-card">
          <PostForm action={`${req.base}/incidents/new`} csrf={req.csrf} label="Declare an incident">
            <Field name="title" label="Title" value={v.title} error={errors.title} required maxLength={300} />
            <SelectField
              name="impact"
              label="Impact"
              value={v.impact ?? 'major'}
              error={errors.impact}
              options={INCIDENT_IMPACTS.map((i) => ({ value: i, label: i[0]!.toUpperCase() + i.slice(1) }))}
            />
            {components.length > 0 && (
              <CheckboxGroup
                name="componentIds"
                legend="Affected components"
                hint="None checked: the whole workspace, shown on every status page."
                options={components.map((c) => ({ value: c.id, label: c.name }))}
                checked={new Set(opts.checked ?? [])}
                error={errors.componentIds}
              />
            )}
            <TextAreaField
              name="message"
              label="First update (optional)"
              value={v.message}
              error={errors.message}
              maxLength={5000}
              hint="Posted as “Investigating”."
            />
            <div class="form-actions">
              <Button>Declare incident</Button>
              <a href={`${req.base}/incidents`}>Cancel</a>
            </div>
          </PostForm>
        </section>
      </ConsoleLayout>
    ),
  };
}

/** Incidents: the list, an incident's page, acknowledge, resolve, post an update, and declaring one by hand. */
export function incidentPages(): PageDef[] {
  return [
    definePage({ method: 'get', path: '/incidents', access: 'workspace', handler: incidentsPage }),
    definePage({
      method: 'get',
      path: '/incidents/new',
      access: 'workspace',
      handler: async (req) =>
        can(req.ctx.role, 'incidents:respond') ? newIncidentPage(req) : { redirect: `${req.base}/incidents` },
    }),
    definePage({
      method: 'post',
      path: '/incidents/new',
      access: 'workspace',
      permission: 'incidents:respond',
      handler: async (req) => {
        const checked = readCheckedValues(req.form, 'componentIds');
        const body = {
          title: req.form.title ?? '',
          impact: req.form.impact ?? 'major',
          ...(checked.length ? { componentIds: checked } : {}),
          ...(given(req.form.message) ? { message: req.form.message } : {}),
        };
        return answerForm(
          async () => {
            const input = await judgeInput(
              manualIncidentInputSchema,
              manualIncidentChecks,
              req.deps,
              { ctx: req.ctx },
              body,
            );
            const created = await createManualIncident(req.deps, { ctx: req.ctx, input });
            return { redirect: `${req.base}/incidents/${created.id}?done=declared` };
          },
          {
            fields: ['title', 'impact', 'componentIds', 'message'],
            again: (issues, status) => newIncidentPage(req, { status, values: req.form, checked, issues }),
          },
        );
      },
    }),
    definePage({ method: 'get', path: '/incidents/:id', access: 'workspace', handler: (req) => incidentPage(req) }),
    definePage({
      method: 'post',
      path: '/incidents/:id/acknowledge',
      access: 'workspace',
      permission: 'incidents:respond',
      handler: async (req) => {
        const i = await acknowledgeIncident(req.deps, { ctx: req.ctx, input: { id: req.params.id! } });
        return { redirect: `${req.base}/incidents/${i.id}?done=acknowledged` };
      },
    }),
    definePage({
      method: 'post',
      path: '/incidents/:id/resolve',
      access: 'workspace',
      permission: 'incidents:respond',
      handler: async (req) => {
        const i = await resolveIncident(req.deps, { ctx: req.ctx, input: { id: req.params.id! } });
        return { redirect: `${req.base}/incidents/${i.id}?done=resolved` };
      },
    }),
    definePage({
      method: 'post',
      path: '/incidents/:id/updates',
      access: 'workspace',
      permission: 'incidents:respond',
      handler: async (req) => {
        let update;
        try {
          update = parseOrThrow(
            incidentUpdateInputSchema,
            { status: req.form.status, message: req.form.message ?? '' },
            'update',
          );
        } catch (err) {
          const issues = formIssuesOf(err, ['status', 'message']);
          if (!issues) throw err;
          return incidentPage(req, {
            status: 400,
            values: req.form,
            errors: issues.byField,
            flash: { kind: 'error', text: 'The update was not posted: see the form.' },
          });
        }
        await createIncidentUpdate(req.deps, { ctx: req.ctx, input: { id: req.params.id!, update } });
        return { redirect: `${req.base}/incidents/${req.params.id!}?done=updated` };
      },
    }),
  ];
}
