import { EVENT_RETENTION_DAYS, EVENT_TYPES, parseOrThrow } from '@statusvane/shared';
import { z } from 'zod';
import type { ApiDeps } from '../../deps.js';
import { createWebhook } from '../../services/webhooks/create-webhook.js';
import { deleteWebhook } from '../../services/webhooks/delete-webhook.js';
import { getWebhook } from '../../services/webhooks/get-webhook.js';
import { listWebhookDeliveries } from '../../services/webhooks/list-deliveries.js';
import { listWebhooks } from '../../services/webhooks/list-webhooks.js';
import { replayWebhook, replayWebhookSchema } from '../../services/webhooks/replay-webhook.js';
import { updateWebhook } from '../../services/webhooks/update-webhook.js';
import { createWebhookSchema, updateWebhookSchema } from '../../services/webhooks/webhook-input.js';
import type {
  CreatedWebhookRecord,
  WebhookDeliveryRecord,
  WebhookRecord,
} from '../../services/webhooks/webhook-record.js';
import { Button } from '../../views/components/button.js';
import { EmptyState } from '../../views/components/empty-state.js';
import { Pager } from '../../views/components/pager.js';
import { Flash } from '../../views/components/flash.js';
import { CheckboxGroup, Field, PostForm, readCheckedValues, VersionField } from '../../views/components/form.js';
import { DataTable, type Column } from '../../views/components/table.js';
import { dateTimeUtc } from '../../views/format.js';
import type { FlashMessage } from '../../views/layout.js';
import { definePage, type PageAnswer, type PageDef, type WorkspaceRequest } from '../define-page.js';
import {
  answerForm,
  type FormIssues,
  given,
  isStaleVersion,
  queryOf,
  readAll,
  withFormVersion,
  staleFlash,
} from '../page-forms.js';
import { SecretOnce } from '../settings/secret-once.js';
import { SettingsLayout } from '../settings/settings-layout.js';

const NOTICES: Record<string, FlashMessage> = {
  saved: { kind: 'notice', text: 'Webhook saved.' },
  deleted: { kind: 'notice', text: 'Webhook deleted: nothing more is sent to it.' },
  replayed: { kind: 'notice', text: 'Replay started: the events are sent again as new deliveries, marked “replay”.' },
};
const listQuery = z.object({ done: z.enum(['deleted']).optional() }).strict();
const pageQuery = z
  .object({
    done: z.enum(['saved', 'replayed']).optional(),
    page: z.coerce.number().int().min(1).max(100_000).optional(),
  })
  .strict();
const FIELDS = ['url', 'description', 'types'];
/** The beginning of the log: a replay from it sends every event the log still keeps. */
const START_OF_LOG = '0'.repeat(32);
const withKeyring = (deps: ApiDeps) => ({ ...deps, keyring: deps.config.encryption });
const typeOptions = EVENT_TYPES.map((t) => ({ value: t, label: t }));

/** The body of a create or an edit from the form: an empty URL on an edit keeps the stored one. */
function bodyOf(form: Record<string, string>, edit: boolean) {
  const url = given(form.url);
  return {
    ...(url || !edit ? { url: url ?? '' } : {}),
    description: (form.description ?? '').trim(),
    types: readCheckedValues(form, 'types'),
  };
}

function WebhookFields(props: {
  values: Record<string, string>;
  types: string[];
  issues?: FormIssues | undefined;
  edit: boolean;
}) {
  const e = props.issues?.byField ?? {};
  return (
    <>
      <Field
        name="url"
        label={props.edit ? 'New URL' : 'URL'}
        type="url"
        required={!props.edit}
        maxLength={2048}
        autocomplete="off"
        hint={
          props.edit
            ? 'The URL is stored encrypted and shown only as scheme://host/…: leave this empty to keep it.'
            : 'An http(s) endpoint that answers 2xx. Stored encrypted; shown later only as scheme://host/….'
        }
        value={props.values.url}
        error={e.url}
      />
      <Field
        name="description"
        label="Description"
        maxLength={500}
        value={props.values.description}
        error={e.description}
      />
      <CheckboxGroup
        name="types"
        legend="Events"
        hint="None checked: every type, including those added later."
        options={typeOptions}
        checked={new Set(props.types)}
        error={e.types}
      />
    </>
  );
}

/** The webhooks, a new one (its signing secret shown once). */
async function webhooksPage(
  req: WorkspaceRequest,
  opts: {
    status?: number;
    created?: CreatedWebhookRecord;
    form?: { values: Record<string, string>; issues: FormIssues };
  } = {},
): Promise<PageAnswer> {
  const done = queryOf(listQuery, req.query, 'webhooks').done;
  const hooks = await readAll((q) => listWebhooks(req.deps, { ctx: req.ctx, input: q }));
  const columns: Array<Column<WebhookRecord>> = [
    {
      header: 'Endpoint',
      class: 'name',
      cell: (w) => (
        <>
          <a href={`${req.base}/settings/webhooks/${w.id}`} class="mono">
            {w.url}
          </a>
          {w.description && <span class="sub muted">{w.description}</span>}
        </>
      ),
    },
    { header: 'Events', cell: (w) => (w.types.length ? w.types.join(', ') : 'Every type') },
    { header: 'Created', class: 'when', cell: (w) => w.createdAt.slice(0, 10) },
  ];
  return {
    status: opts.status ?? 200,
    view: (
      <SettingsLayout
        req={req}
        section="webhooks"
        title="Webhooks"
        lead="Every event of the workspace (incidents, monitors, maintenance) posted to your endpoints, signed."
        flash={done ? NOTICES[done] : null}
      >
        {opts.created?.secret && (
          <section class="card created-card" aria-labelledby="created-h">
            <h2 id="created-h">Webhook created</h2>
            <SecretOnce
              id="webhook-secret"
              label="Its signing secret"
              value={opts.created.secret}
              note="Verify Statusvane-Signature with it. It is shown only this once."
            />
            <p>
              <a href={`${req.base}/settings/webhooks/${opts.created.id}`}>See its deliveries</a>
            </p>
          </section>
        )}
        {hooks.length === 0 ? (
          <EmptyState title="No webhooks">Add an endpoint below to receive the workspace's events.</EmptyState>
        ) : (
          <DataTable
            caption="Webhooks"
            captionHidden
            class="webhooks"
            columns={columns}
            rows={hooks}
            rowId={(w) => `webhook-${w.id}`}
          />
        )}
        <section class="card form-card" aria-labelledby="new-webhook-h">
          <h2 id="new-webhook-h">Add a webhook</h2>
          {opts.form && opts.form.issues.rest.length > 0 && (
            <Flash kind="error">{opts.form.issues.rest.join(' ')}</Flash>
          )}
          <PostForm action={`${req.base}/settings/webhooks`} csrf={req.csrf} label="Add a webhook">
            <WebhookFields
              values={opts.form?.values ?? {}}
              types={opts.form ? readCheckedValues(opts.form.values, 'types') : []}
              issues={opts.form?.issues}
              edit={false}
            />
            <div class="form-actions">
              <Button>Add webhook</Button>
            </div>
          </PostForm>
        </section>
      </SettingsLayout>
    ),
  };
}

const DELIVERY_WORDS = { pending: 'Pending', sent: 'Sent', failed: 'Failed' } as const;

/** A webhook: its deliveries, the edit form, replay and delete. */
async function webhookPage(
  req: WorkspaceRequest,
  opts: {
    status?: number;
    flash?: FlashMessage;
    edit?: { values: Record<string, string>; issues: FormIssues };
    replay?: { values: Record<string, string>; issues: FormIssues };
  } = {},
): Promise<PageAnswer> {
  const q = queryOf(pageQuery, req.query, 'webhook');
  const id = req.params.id!;
  const [hook, deliveries] = await Promise.all([
    getWebhook(req.deps, { ctx: req.ctx, input: { id } }),
    listWebhookDeliveries(req.deps, { ctx: req.ctx, input: { id, query: { page: q.page ?? 1, perPage: 50 } } }),
  ]);
  const action = `${req.base}/settings/webhooks/${hook.id}`;
  const columns: Array<Column<WebhookDeliveryRecord>> = [
    {
      header: 'Created',
      class: 'when',
      cell: (d) => <time datetime={d.createdAt}>{dateTimeUtc(new Date(d.createdAt))}</time>,
    },
    { header: 'Event', cell: (d) => <span class="mono">{d.eventType}</span> },
    {
      header: 'Status',
      cell: (d) => (
        <span class={`tag ${d.status === 'sent' ? 'tag-ok' : d.status === 'failed' ? 'tag-bad' : 'tag-wait'}`}>
          {DELIVERY_WORDS[d.status]}
          {d.replay ? ' (replay)' : ''}
        </span>
      ),
    },
    { header: 'Attempts', cell: (d) => String(d.attempts) },
    {
      header: 'Last answer',
      cell: (d) => (d.responseStatus ? `HTTP ${d.responseStatus}` : (d.reason ?? '—')),
    },
  ];
  const p = deliveries.pagination;
  const editValues = opts.edit?.values ?? { description: hook.description };
  return {
    status: opts.status ?? 200,
    view: (
      <SettingsLayout
        req={req}
        section="webhooks"
        title="Webhook"
        lead={<span class="mono">{hook.url}</span>}
        flash={opts.flash ?? (q.done ? NOTICES[q.done] : null)}
      >
        <p class="breadcrumb">
          <a href={`${req.base}/settings/webhooks`}>Webhooks</a>
        </p>
        <section class="list-section" aria-labelledby="deliveries-h">
          <h2 id="deliveries-h">Deliveries</h2>
          {deliveries.data.length === 0 ? (
            <EmptyState title="Nothing delivered yet">Deliveries appear here as events happen.</EmptyState>
          ) : (
            <DataTable
              caption="Deliveries, newest first"
              captionHidden
              class="deliveries-table"
              columns={columns}
              rows={deliveries.data}
              rowId={(d) => `delivery-${d.id}`}
            />
          )}
          <Pager label="deliveries" pagination={p} href={(n) => `${action}?page=${n}`} newest />
        </section>
        <div class="two-columns">
          <section class="card" aria-labelledby="edit-h">
            <h2 id="edit-h">Edit</h2>
            {opts.edit && opts.edit.issues.rest.length > 0 && (
              <Flash kind="error">{opts.edit.issues.rest.join(' ')}</Flash>
            )}
            <PostForm action={action} csrf={req.csrf} label="Edit the webhook">
              <VersionField version={hook.version} />
              <WebhookFields
                values={editValues}
                types={opts.edit ? readCheckedValues(opts.edit.values, 'types') : hook.types}
                issues={opts.edit?.issues}
                edit
              />
              <div class="form-actions">
                <Button>Save</Button>
              </div>
            </PostForm>
          </section>
          <div>
            <section class="card" aria-labelledby="replay-h">
              <h2 id="replay-h">Replay</h2>
              <p class="muted">
                Send events again, from a position of the event log on (an event’s <code>sequence</code>, or a{' '}
                <code>nextCursor</code>). Empty: every event kept ({EVENT_RETENTION_DAYS} days).
              </p>
              <PostForm action={`${action}/replay`} csrf={req.csrf} label="Replay events">
                <Field
                  name="after"
                  label="After"
                  autocomplete="off"
                  pattern="[0-9a-f]{32}"
                  value={opts.replay?.values.after}
                  error={opts.replay?.issues.byField.after}
                />
                <div class="form-actions">
                  <Button variant="secondary">Replay</Button>
                </div>
              </PostForm>
            </section>
            <section class="card" aria-labelledby="delete-h">
              <h2 id="delete-h">Delete</h2>
              <PostForm action={`${action}/delete`} csrf={req.csrf}>
                <VersionField version={hook.version} />
                <Button variant="danger" confirm="Delete this webhook? Nothing more is sent to it.">
                  Delete webhook
                </Button>
              </PostForm>
            </section>
          </div>
        </div>
      </SettingsLayout>
    ),
  };
}

const stale = staleFlash('This webhook');

/** Settings: webhooks, their deliveries, edits, replays. */
export function webhookPages(): PageDef[] {
  return [
    definePage({ method: 'get', path: '/settings/webhooks', access: 'workspace', handler: (req) => webhooksPage(req) }),
    definePage({
      method: 'post',
      path: '/settings/webhooks',
      access: 'workspace',
      permission: 'webhooks:manage',
      handler: async (req) => {
        return answerForm(
          async () => {
            const input = parseOrThrow(createWebhookSchema, bodyOf(req.form, false), 'webhook');
            const created = await createWebhook(withKeyring(req.deps), { ctx: req.ctx, input });
            return webhooksPage(req, { created });
          },
          {
            fields: FIELDS,
            again: (issues, status) => webhooksPage(req, { status, form: { values: req.form, issues } }),
          },
        );
      },
    }),
    definePage({
      method: 'get',
      path: '/settings/webhooks/:id',
      access: 'workspace',
      handler: (req) => webhookPage(req),
    }),
    definePage({
      method: 'post',
      path: '/settings/webhooks/:id',
      access: 'workspace',
      permission: 'webhooks:manage',
      handler: async (req) => {
        return answerForm(
          async () => {
            const changes = parseOrThrow(updateWebhookSchema, bodyOf(req.form, true), 'webhook');
            await updateWebhook(withKeyring(req.deps), {
              ctx: withFormVersion(req.ctx, req.form),
              input: { id: req.params.id!, changes },
            });
            return { redirect: `${req.base}/settings/webhooks/${req.params.id!}?done=saved` };
          },
          {
            fields: FIELDS,
            stale: () => webhookPage(req, { status: 409, flash: stale }),
            again: (issues, status) => webhookPage(req, { status, edit: { values: req.form, issues } }),
          },
        );
      },
    }),
    definePage({
      method: 'post',
      path: '/settings/webhooks/:id/replay',
      access: 'workspace',
      permission: 'webhooks:manage',
      handler: async (req) => {
        return answerForm(
          async () => {
            const { after } = parseOrThrow(
              replayWebhookSchema,
              { after: given(req.form.after) ?? START_OF_LOG },
              'replay',
            );
            await replayWebhook(req.deps, { ctx: req.ctx, input: { id: req.params.id!, after } });
            return { redirect: `${req.base}/settings/webhooks/${req.params.id!}?done=replayed` };
          },
          {
            fields: ['after'],
            again: (issues, status) => webhookPage(req, { status, replay: { values: req.form, issues } }),
          },
        );
      },
    }),
    definePage({
      method: 'post',
      path: '/settings/webhooks/:id/delete',
      access: 'workspace',
      permission: 'webhooks:manage',
      handler: async (req) => {
        try {
          await deleteWebhook(req.deps, { ctx: withFormVersion(req.ctx, req.form), input: { id: req.params.id! } });
        } catch (err) {
          if (isStaleVersion(err)) return webhookPage(req, { status: 409, flash: stale });
          throw err;
        }
        return { redirect: `${req.base}/settings/webhooks?done=deleted` };
      },
    }),
  ];
}
