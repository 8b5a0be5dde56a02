import { z } from 'zod';
import {
  AppError,
  createMonitorSchema,
  encodeCursor,
  paginationQuerySchema,
  responseTimesQuerySchema,
  updateMonitorSchema,
  uuidSchema,
} from '@statusvane/shared';
import { can } from '../../services/auth/permissions.js';
import { listEscalationPolicies } from '../../services/escalation-policies/list-escalation-policies.js';
import { incidentListQuerySchema, listIncidents } from '../../services/incidents/list-incidents.js';
import { createMonitor } from '../../services/monitors/create-monitor.js';
import { deleteMonitor } from '../../services/monitors/delete-monitor.js';
import { getMonitor } from '../../services/monitors/get-monitor.js';
import { getResponseTimes } from '../../services/monitors/get-response-times.js';
import { checkResultQuerySchema, listCheckResults } from '../../services/monitors/list-check-results.js';
import { listMonitorUptimes, UPTIME_WINDOWS } from '../../services/monitors/list-monitor-uptimes.js';
import type { MonitorRecord } from '../../services/monitors/monitor-record.js';
import { createMonitorChecks, updateMonitorChecks } from '../../services/monitors/monitor-validation.js';
import { listSecrets } from '../../services/secrets/list-secrets.js';
import { judgeInput } from '../../services/validation.js';
import { updateMonitor } from '../../services/monitors/update-monitor.js';
import { Button } from '../../views/components/button.js';
import { PostForm } from '../../views/components/form.js';
import { ConsoleLayout, type FlashMessage } from '../../views/layout.js';
import { definePage, type PageAnswer, type PageDef, type WorkspaceRequest } from '../define-page.js';
import {
  CertificateCard,
  LatestResults,
  MonitorHeader,
  MonitorIncidents,
  MonitorSummary,
  PingCard,
  ResponseTimes,
  StepsCard,
} from '../monitors/monitor-detail-view.js';
import { applyStepOp, blankStep, stepsOfForm, stepsValues, withSteps } from '../monitors/api-steps-form.js';
import { bodyOf, issuesByField, MonitorForm, valuesOf, type FormValues } from '../monitors/monitor-form.js';
import { MONITOR_TYPE_LABELS, type MonitorType } from '../monitors/monitor-list-view.js';
import { CHART_RANGES, chartData, type ChartRange } from '../monitors/response-chart.js';
import { ifMatchOf } from './monitors.pages.js';

const NOTICES: Record<string, FlashMessage> = {
  created: { kind: 'notice', text: 'Monitor created: its first check runs within seconds.' },
  saved: { kind: 'notice', text: 'Changes saved.' },
  paused: { kind: 'notice', text: 'Monitor paused: no checks run until you resume it.' },
  resumed: { kind: 'notice', text: 'Monitor resumed: a check runs now.' },
};

const pageQuerySchema = z
  .object({
    range: z.enum(Object.keys(CHART_RANGES) as [ChartRange, ...ChartRange[]]).optional(),
    done: z.string().max(20).optional(),
  })
  .strict();

/** A read of this monitor's own data through its API verbs (the results, incidents and histories). */
const RESULTS_SHOWN = 20;
const INCIDENTS_SHOWN = 10;

async function monitorPage(req: WorkspaceRequest): Promise<PageAnswer> {
  const parsed = pageQuerySchema.safeParse(req.query);
  if (!parsed.success) throw new AppError('invalid_request', 'This address has a parameter the page does not know.');
  const range = parsed.data.range ?? '24h';
  const { ctx, deps } = req;
  const id = req.params.id!;
  const period = CHART_RANGES[range].period;
  const history = (region: string) =>
    getResponseTimes(deps, { ctx, input: { id, query: responseTimesQuerySchema.parse({ period, region }) } });
  // Every read at once, the monitor's own with them (each verb checks the monitor is the workspace's; their lookups
  // share one query): the histories of the deployment's regions, which are a monitor's unless it names its own.
  const monitor = getMonitor(deps, { ctx, input: { id } });
  // An id that is no uuid is a 404 from the monitor's own read, before the others take it to a uuid column.
  if (!uuidSchema.safeParse(id).success) await monitor;
  const [m, uptimes, configured, results, incidents] = await Promise.all([
    monitor,
    listMonitorUptimes(deps, { ctx, input: { monitorIds: [id], windows: UPTIME_WINDOWS } }),
    Promise.all(deps.config.checkRegions.map(history)),
    listCheckResults(deps, {
      ctx,
      input: { id, query: checkResultQuerySchema.parse({ perPage: String(RESULTS_SHOWN) }) },
    }),
    listIncidents(deps, {
      ctx,
      input: incidentListQuerySchema.parse({ monitorId: id, perPage: String(INCIDENTS_SHOWN) }),
    }),
  ]);
  // The live stream follows the page from where the event log ended before its reads (read with the session).
  const cursor = encodeCursor(req.session.logEnd);
  // p50 and p95 per region: one history per region the monitor is checked from.
  const read = new Map(configured.map((h) => [h.region, h]));
  const histories = await Promise.all(m.regions.map((region) => read.get(region) ?? history(region)));
  const self = `${req.base}/monitors/${m.id}`;
  return {
    view: (
      <ConsoleLayout
        chrome={req.chrome}
        title={m.name}
        section="monitors"
        flash={parsed.data.done ? (NOTICES[parsed.data.done] ?? null) : null}
      >
        <div data-live={`${req.base}/monitors/live`} data-after={cursor}>
          <div id="live-announcer" class="visually-hidden" aria-live="polite" />
          <MonitorHeader
            base={req.base}
            monitor={m}
            csrf={req.csrf}
            canWrite={can(ctx.role, 'monitors:write')}
            canDelete={can(ctx.role, 'monitors:delete')}
          />
          <MonitorSummary monitor={m} uptimes={uptimes.get(m.id)!} now={req.now} />
          <PingCard monitor={m} />
          <StepsCard monitor={m} latest={results.data[0]} />
          <ResponseTimes self={self} range={range} data={chartData(histories)} />
          <LatestResults results={results.data} now={req.now} />
          <div class="columns">
            <CertificateCard monitor={m} />
            <MonitorIncidents base={req.base} incidents={incidents.data} now={req.now} />
          </div>
        </div>
      </ConsoleLayout>
    ),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The form: new and edit. Both go through the API's verbs (createMonitor, updateMonitor) with the form's fields as the
// JSON body; a 400's issues come back beside their fields with the typed values kept.

const TYPES = (Object.keys(MONITOR_TYPE_LABELS) as Array<keyof typeof MONITOR_TYPE_LABELS>).filter(
  (t): t is MonitorType => t !== 'domain',
);

/** The typed values of a posted form (regions: every box). */
function postedValues(req: WorkspaceRequest): FormValues {
  return { ...req.form, regions: req.formLists.regions ?? [] };
}

async function policiesOf(req: WorkspaceRequest) {
  const page = await listEscalationPolicies(req.deps, {
    ctx: req.ctx,
    input: paginationQuerySchema.parse({ perPage: '250' }),
  });
  return page.data.map((p) => ({ id: p.id, name: p.name }));
}

/** Defaults a new monitor's form starts with (the API's own defaults, shown). */
function newValues(type: MonitorType, regions: readonly string[]): FormValues {
  return {
    method: 'GET',
    dnsRecordType: 'A',
    intervalSeconds: type === 'heartbeat' ? '86400' : '60',
    timeoutMs: '10000',
    openThreshold: '2',
    resolveThreshold: '2',
    confirmAfterSeconds: '15',
    certificateExpiryDays: '7',
    graceSeconds: '300',
    timezone: type === 'heartbeat' ? 'UTC' : '',
    environment: 'production',
    'jsonAssertion.operator': 'eq',
    regions: [...regions],
    ...(type === 'api' ? stepsValues([blankStep()]) : {}),
  };
}

/** The names of the workspace's secrets, which an api monitor's steps may name (read only for that form). */
async function secretNames(req: WorkspaceRequest, type: MonitorType): Promise<string[]> {
  if (type !== 'api') return [];
  const page = await listSecrets(req.deps, { ctx: req.ctx, input: paginationQuerySchema.parse({ perPage: '250' }) });
  return page.data.map((s) => s.name);
}

/**
 * A step button of the api form (`_op`: add, remove or move a step, add a row): the form again with the change and
 * everything typed kept, nothing written. Null when the post is no such button (it saves).
 */
function stepOp(req: WorkspaceRequest, values: FormValues): FormValues | null {
  const op = req.form._op;
  if (op === undefined) return null;
  const steps = stepsOfForm(values);
  return withSteps(values, applyStepOp(steps, op) ?? steps);
}

function NewMonitorPage(props: {
  req: WorkspaceRequest;
  type: MonitorType;
  values: FormValues;
  errors: Record<string, string>;
  secrets: readonly string[];
}) {
  const { req, type } = props;
  return (
    <ConsoleLayout chrome={req.chrome} title="New monitor" section="monitors">
      <div class="page-header">
        <div>
          <p class="crumbs">
            <a href={`${req.base}/monitors`}>Monitors</a>
          </p>
          <h1>New monitor</h1>
        </div>
      </div>
      <nav aria-label="Kind of monitor">
        <ul class="segmented type-choice">
          {TYPES.map((t) => (
            <li>
              <a href={`${req.base}/monitors/new?type=${t}`} aria-current={t === type ? 'true' : undefined}>
                {MONITOR_TYPE_LABELS[t]}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <MonitorForm
        action={`${req.base}/monitors/new`}
        csrf={req.csrf}
        type={type}
        mode="create"
        values={props.values}
        errors={props.errors}
        regions={req.deps.config.checkRegions}
        policies={[]}
        secrets={props.secrets}
        submitLabel="Create monitor"
        cancel={`${req.base}/monitors`}
      />
    </ConsoleLayout>
  );
}

const typeQuerySchema = z.object({ type: z.enum(TYPES as [MonitorType, ...MonitorType[]]).optional() }).strict();

/** The form's kind of a monitor: a domain monitor is written through the API, the CLI or a config document. */
function formTypeOf(m: MonitorRecord): MonitorType {
  if (m.type === 'domain')
    throw new AppError(
      'conflict',
      'A domain monitor is edited through the API, the CLI or a config document: this form does not edit it.',
    );
  return m.type;
}

function EditMonitorPage(props: {
  req: WorkspaceRequest;
  monitor: MonitorRecord;
  values: FormValues;
  errors: Record<string, string>;
  policies: ReadonlyArray<{ id: string; name: string }>;
  secrets: readonly string[];
  flash?: FlashMessage | null;
}) {
  const { req, monitor: m } = props;
  const self = `${req.base}/monitors/${m.id}`;
  const metadata = Object.entries(m.metadata);
  return (
    <ConsoleLayout chrome={req.chrome} title={`Edit ${m.name}`} section="monitors" flash={props.flash}>
      <div class="page-header">
        <div>
          <p class="crumbs">
            <a href={`${req.base}/monitors`}>Monitors</a> / <a href={self}>{m.name}</a>
          </p>
          <h1>Edit {m.name}</h1>
          <p>{MONITOR_TYPE_LABELS[m.type]} monitor (the kind is set at creation)</p>
        </div>
      </div>
      <MonitorForm
        action={`${self}/edit`}
        csrf={req.csrf}
        type={formTypeOf(m)}
        mode="edit"
        values={props.values}
        errors={props.errors}
        version={m.version}
        regions={req.deps.config.checkRegions}
        policies={props.policies}
        hasSecret={{ headers: m.headerNames, body: m.hasBody }}
        secrets={props.secrets}
        submitLabel="Save changes"
        cancel={self}
        readOnly={
          <div class="field">
            <span class="label">Metadata</span>
            <p class="hint">Set at creation; copied onto every incident.</p>
            {metadata.length ? (
              <ul class="pairs">
                {metadata.map(([k, v]) => (
                  <li>
                    <code>
                      {k}={v}
                    </code>
                  </li>
                ))}
              </ul>
            ) : (
              <p class="muted">None</p>
            )}
          </div>
        }
      />
    </ConsoleLayout>
  );
}

/** The issues of a service's 400, or null for any other error (thrown on). */
function issuesOf(err: unknown): Array<{ path: string; message: string }> | null {
  if (!(err instanceof AppError) || err.code !== 'invalid_request') return null;
  const issues = (err.details as { issues?: Array<{ path: string; message: string }> } | undefined)?.issues;
  return issues ?? [{ path: '', message: err.message }];
}

async function editSubmit(req: WorkspaceRequest): Promise<PageAnswer> {
  const { ctx, deps } = req;
  const current = await getMonitor(deps, { ctx, input: { id: req.params.id! } });
  const [policies, secrets] = await Promise.all([policiesOf(req), secretNames(req, formTypeOf(current))]);
  const posted = postedValues(req);
  const again = stepOp(req, posted);
  if (again)
    return {
      view: (
        <EditMonitorPage req={req} monitor={current} values={again} errors={{}} policies={policies} secrets={secrets} />
      ),
    };
  const values = posted;
  const changes = bodyOf(formTypeOf(current), values, 'edit', current);
  try {
    // Judged as PATCH /monitors/{id} judges its body (schema, then the checks), then written.
    const parsed = await judgeInput(
      updateMonitorSchema,
      updateMonitorChecks,
      deps,
      { ctx, params: { id: current.id } },
      changes,
    );
    await updateMonitor(deps, {
      ctx: { ...ctx, ...ifMatchOf(req.form.version) },
      input: { id: current.id, changes: parsed },
    });
  } catch (err) {
    if (err instanceof AppError && err.code === 'precondition_failed') {
      // Someone saved first: their values, and what this form tried to change, so it can be done again knowingly.
      const tried = Object.keys(changes);
      return {
        status: 409,
        view: (
          <EditMonitorPage
            req={req}
            monitor={current}
            values={valuesOf(current)}
            errors={{}}
            policies={policies}
            secrets={secrets}
            flash={{
              kind: 'error',
              text: `This monitor changed since you opened the form, so nothing was saved. The form now shows its current values${
                tried.length ? `; you had changed: ${tried.join(', ')}` : ''
              }.`,
            }}
          />
        ),
      };
    }
    const issues = issuesOf(err);
    if (!issues) throw err;
    return {
      status: 400,
      view: (
        <EditMonitorPage
          req={req}
          monitor={current}
          values={values}
          errors={issuesByField(formTypeOf(current), 'edit', issues, values)}
          policies={policies}
          secrets={secrets}
          flash={{ kind: 'error', text: 'Some fields need another look: see beside them.' }}
        />
      ),
    };
  }
  return { redirect: `${req.base}/monitors/${current.id}?done=saved` };
}

async function createSubmit(req: WorkspaceRequest): Promise<PageAnswer> {
  const type = TYPES.includes(req.form.type as MonitorType) ? (req.form.type as MonitorType) : 'http';
  const values = postedValues(req);
  const secrets = await secretNames(req, type);
  const again = stepOp(req, values);
  if (again) return { view: <NewMonitorPage req={req} type={type} values={again} errors={{}} secrets={secrets} /> };
  try {
    // Judged as POST /monitors judges its body (schema, then the checks), then created.
    const input = await judgeInput(
      createMonitorSchema,
      createMonitorChecks,
      req.deps,
      { ctx: req.ctx },
      bodyOf(type, values, 'create'),
    );
    const m = await createMonitor(req.deps, { ctx: req.ctx, input });
    return { redirect: `${req.base}/monitors/${m.id}?done=created` };
  } catch (err) {
    const issues = issuesOf(err);
    if (!issues) throw err;
    return {
      status: 400,
      view: (
        <NewMonitorPage
          req={req}
          type={type}
          values={values}
          errors={issuesByField(type, 'create', issues, values)}
          secrets={secrets}
        />
      ),
    };
  }
}

// ---------------------------------------------------------------------------------------------------------------

function DeletePage(props: { req: WorkspaceRequest; monitor: MonitorRecord; stale?: boolean }) {
  const { req, monitor: m } = props;
  const self = `${req.base}/monitors/${m.id}`;
  return (
    <ConsoleLayout
      chrome={req.chrome}
      title={`Delete ${m.name}?`}
      section="monitors"
      flash={
        props.stale
          ? {
              kind: 'error',
              text: 'The monitor changed since this page was shown, so it was not deleted. Check it and confirm again.',
            }
          : null
      }
    >
      <div class="narrow">
        <div class="page-header">
          <div>
            <h1>Delete {m.name}?</h1>
          </div>
        </div>
        <section class="card">
          <p>Deleting it at once and for good:</p>
          <ul>
            <li>stops its checks{m.pingUrl ? ' and makes its ping URL answer 404' : ''};</li>
            <li>deletes its check results and response-time history;</li>
            <li>removes its component from every status page;</li>
            <li>keeps its incidents (an open one is resolved first).</li>
          </ul>
          <PostForm action={`${self}/delete`} csrf={req.csrf} class="form-actions">
            <input type="hidden" name="version" value={String(m.version)} />
            <Button variant="danger">Delete {m.name}</Button>
            <a href={self}>Cancel</a>
          </PostForm>
        </section>
      </div>
    </ConsoleLayout>
  );
}

async function deleteSubmit(req: WorkspaceRequest): Promise<PageAnswer> {
  try {
    await deleteMonitor(req.deps, {
      ctx: { ...req.ctx, ...ifMatchOf(req.form.version) },
      input: { id: req.params.id! },
    });
  } catch (err) {
    if (err instanceof AppError && err.code === 'precondition_failed') {
      const m = await getMonitor(req.deps, { ctx: req.ctx, input: { id: req.params.id! } });
      return { status: 409, view: <DeletePage req={req} monitor={m} stale /> };
    }
    throw err;
  }
  return { redirect: `${req.base}/monitors?done=deleted` };
}

/** A monitor's page, the form to create one and to edit one, and its deletion. */
export function monitorDetailPages(): PageDef[] {
  return [
    definePage({
      method: 'get',
      path: '/monitors/new',
      access: 'workspace',
      permission: 'monitors:write',
      handler: async (req) => {
        const parsed = typeQuerySchema.safeParse(req.query);
        const type = parsed.success ? (parsed.data.type ?? 'http') : 'http';
        return {
          view: (
            <NewMonitorPage
              req={req}
              type={type}
              values={newValues(type, req.deps.config.checkRegions)}
              errors={{}}
              secrets={await secretNames(req, type)}
            />
          ),
        };
      },
    }),
    definePage({
      method: 'post',
      path: '/monitors/new',
      access: 'workspace',
      permission: 'monitors:write',
      handler: createSubmit,
    }),
    definePage({ method: 'get', path: '/monitors/:id', access: 'workspace', handler: monitorPage }),
    definePage({
      method: 'get',
      path: '/monitors/:id/edit',
      access: 'workspace',
      permission: 'monitors:write',
      handler: async (req) => {
        const m = await getMonitor(req.deps, { ctx: req.ctx, input: { id: req.params.id! } });
        const [policies, secrets] = await Promise.all([policiesOf(req), secretNames(req, formTypeOf(m))]);
        return {
          view: (
            <EditMonitorPage
              req={req}
              monitor={m}
              values={valuesOf(m)}
              errors={{}}
              policies={policies}
              secrets={secrets}
            />
          ),
        };
      },
    }),
    definePage({
      method: 'post',
      path: '/monitors/:id/edit',
      access: 'workspace',
      permission: 'monitors:write',
      handler: editSubmit,
    }),
    definePage({
      method: 'get',
      path: '/monitors/:id/delete',
      access: 'workspace',
      permission: 'monitors:delete',
      handler: async (req) => {
        const m = await getMonitor(req.deps, { ctx: req.ctx, input: { id: req.params.id! } });
        return { view: <DeletePage req={req} monitor={m} /> };
      },
    }),
    definePage({
      method: 'post',
      path: '/monitors/:id/delete',
      access: 'workspace',
      permission: 'monitors:delete',
      handler: deleteSubmit,
    }),
  ];
}
