import { parseOrThrow, ROLES } from '@statusvane/shared';
import { z } from 'zod';
import { createToken, createTokenSchema } from '../../services/tokens/create-token.js';
import { deleteToken } from '../../services/tokens/delete-token.js';
import { listTokens } from '../../services/tokens/list-tokens.js';
import type { ApiTokenRecord, CreatedApiTokenRecord } from '../../services/tokens/token-record.js';
import { createWallToken, createWallTokenSchema } from '../../services/wall-tokens/create-wall-token.js';
import { deleteWallToken } from '../../services/wall-tokens/delete-wall-token.js';
import { listWallTokens } from '../../services/wall-tokens/list-wall-tokens.js';
import type { CreatedWallTokenRecord, WallTokenRecord } from '../../services/wall-tokens/wall-token-record.js';
import { Button } from '../../views/components/button.js';
import { EmptyState } from '../../views/components/empty-state.js';
import { Field, PostForm, SelectField, VersionField } from '../../views/components/form.js';
import { DataTable, type Column } from '../../views/components/table.js';
import { relativeTime } from '../../views/format.js';
import type { FlashMessage } from '../../views/layout.js';
import { definePage, type PageAnswer, type PageDef, type WorkspaceRequest } from '../define-page.js';
import { answerForm, given, isStaleVersion, queryOf, readAll, withFormVersion, staleFlash } from '../page-forms.js';
import { SecretOnce } from '../settings/secret-once.js';
import { SettingsLayout } from '../settings/settings-layout.js';

const doneQuery = z.object({ done: z.enum(['revoked', 'deleted']).optional() }).strict();
const lastUsed = (at: string | null, now: Date) => (at ? relativeTime(new Date(at), now) : 'Never');
const stale = staleFlash('It');

/** API tokens: the list (prefix, role, last use, expiry), a new one shown once, revoke. */
async function tokensPage(
  req: WorkspaceRequest,
  opts: {
    status?: number;
    created?: CreatedApiTokenRecord;
    flash?: FlashMessage;
    form?: { values: Record<string, string>; errors: Record<string, string> };
  } = {},
): Promise<PageAnswer> {
  const done = queryOf(doneQuery, req.query, 'API tokens').done;
  const tokens = await readAll((q) => listTokens(req.deps, { ctx: req.ctx, input: q }));
  const columns: Array<Column<ApiTokenRecord>> = [
    { header: 'Name', class: 'name', cell: (t) => <strong>{t.name ?? 'Unnamed'}</strong> },
    { header: 'Token', class: 'mono-cell', cell: (t) => <code>{t.prefix}…</code> },
    { header: 'Role', cell: (t) => t.role },
    { header: 'Last used', class: 'when', cell: (t) => lastUsed(t.lastUsedAt, req.now) },
    { header: 'Expires', class: 'when', cell: (t) => (t.expiresAt ? t.expiresAt.slice(0, 10) : 'Never') },
    {
      header: 'Actions',
      hiddenHeader: true,
      class: 'actions',
      cell: (t) => (
        <PostForm action={`${req.base}/settings/tokens/${t.id}/revoke`} csrf={req.csrf}>
          <VersionField version={t.version} />
          <Button
            variant="danger"
            small
            label={`Revoke ${t.name ?? t.prefix}`}
            confirm="Revoke this token? Whatever uses it stops working at once."
          >
            Revoke
          </Button>
        </PostForm>
      ),
    },
  ];
  const v = opts.form?.values ?? {};
  const e = opts.form?.errors ?? {};
  return {
    status: opts.status ?? 200,
    view: (
      <SettingsLayout
        req={req}
        section="tokens"
        title="API tokens"
        lead="Workspace tokens for scripts, CI and integrations: each acts with its own role."
        flash={opts.flash ?? (done === 'revoked' ? { kind: 'notice', text: 'Token revoked.' } : null)}
      >
        {opts.created?.token && (
          <section class="card created-card" aria-labelledby="created-h">
            <h2 id="created-h">Token “{opts.created.name}” created</h2>
            <SecretOnce id="new-token" label="Your new token" value={opts.created.token} />
          </section>
        )}
        {tokens.length === 0 ? (
          <EmptyState title="No API tokens">Create one below for a script or an integration.</EmptyState>
        ) : (
          <DataTable
            caption="API tokens"
            captionHidden
            class="tokens"
            columns={columns}
            rows={tokens}
            rowId={(t) => `token-${t.id}`}
          />
        )}
        <section class="card form-card add-card" aria-labelledby="new-token-h">
          <h2 id="new-token-h">Create a token</h2>
          <PostForm action={`${req.base}/settings/tokens`} csrf={req.csrf} label="Create a token" class="row-form">
            <Field name="name" label="Name" required maxLength={200} value={v.name} error={e.name} />
            <SelectField
              name="role"
              label="Role"
              value={v.role ?? 'member'}
              error={e.role}
              options={ROLES.filter((r) => r !== 'owner' || req.ctx.role === 'owner').map((r) => ({
                value: r,
                label: r[0]!.toUpperCase() + r.slice(1),
              }))}
            />
            <Field
              name="expiresInDays"
              label="Expires after (days)"
              type="number"
              min={1}
              max={3650}
              hint="Empty: never."
              value={v.expiresInDays}
              error={e.expiresInDays}
            />
            <div class="field">
              <Button>Create token</Button>
            </div>
          </PostForm>
        </section>
      </SettingsLayout>
    ),
  };
}

/** Wall views: their links (never shown again), a new one shown once with its URL, delete. */
async function wallPage(
  req: WorkspaceRequest,
  opts: {
    status?: number;
    created?: CreatedWallTokenRecord;
    flash?: FlashMessage;
    form?: { values: Record<string, string>; errors: Record<string, string> };
  } = {},
): Promise<PageAnswer> {
  const done = queryOf(doneQuery, req.query, 'wall views').done;
  const walls = await readAll((q) => listWallTokens(req.deps, { ctx: req.ctx, input: q }));
  const columns: Array<Column<WallTokenRecord>> = [
    { header: 'Name', class: 'name', cell: (w) => <strong>{w.name}</strong> },
    { header: 'Created', class: 'when', cell: (w) => w.createdAt.slice(0, 10) },
    { header: 'Last shown', class: 'when', cell: (w) => lastUsed(w.lastUsedAt, req.now) },
    {
      header: 'Actions',
      hiddenHeader: true,
      class: 'actions',
      cell: (w) => (
        <PostForm action={`${req.base}/settings/wall/${w.id}/delete`} csrf={req.csrf}>
          <VersionField version={w.version} />
          <Button
            variant="danger"
            small
            label={`Delete the wall view ${w.name}`}
            confirm="Delete this wall view? Its screen stops showing the workspace at its next refresh."
          >
            Delete
          </Button>
        </PostForm>
      ),
    },
  ];
  const v = opts.form?.values ?? {};
  return {
    status: opts.status ?? 200,
    view: (
      <SettingsLayout
        req={req}
        section="wall"
        title="Wall views"
        lead="A read-only board of every monitor, worst first, for a screen on the wall: no sign-in, refreshes itself."
        flash={
          opts.flash ??
          (done === 'deleted' ? { kind: 'notice', text: 'Wall view deleted: its screen stops at once.' } : null)
        }
      >
        {opts.created?.url && (
          <section class="card created-card" aria-labelledby="created-h">
            <h2 id="created-h">Wall view “{opts.created.name}” created</h2>
            <SecretOnce
              id="new-wall"
              label="Open this address on the screen"
              value={opts.created.url}
              note="Anyone with this address sees the workspace's monitors: it is shown only this once. Delete the wall view to stop it."
            />
            <p>
              <a href={opts.created.url} target="_blank" rel="noreferrer noopener">
                Open the wall view
              </a>
            </p>
          </section>
        )}
        {walls.length === 0 ? (
          <EmptyState title="No wall views">Create one below and open its address on the screen.</EmptyState>
        ) : (
          <DataTable
            caption="Wall views"
            captionHidden
            class="walls"
            columns={columns}
            rows={walls}
            rowId={(w) => `wall-${w.id}`}
          />
        )}
        <section class="card form-card add-card" aria-labelledby="new-wall-h">
          <h2 id="new-wall-h">Create a wall view</h2>
          <PostForm action={`${req.base}/settings/wall`} csrf={req.csrf} label="Create a wall view" class="row-form">
            <Field
              name="name"
              label="Name"
              required
              maxLength={200}
              hint="Where the screen is."
              value={v.name}
              error={opts.form?.errors.name}
            />
            <div class="field">
              <Button>Create wall view</Button>
            </div>
          </PostForm>
        </section>
      </SettingsLayout>
    ),
  };
}

type Page = (req: WorkspaceRequest, opts: { status?: number; flash?: FlashMessage }) => Promise<PageAnswer>;

/** A delete from a list row with the row's version: done, or the list again (409 with how it is now when stale). */
function removal(
  path: string,
  permission: 'tokens:manage' | 'wallTokens:manage',
  page: Page,
  run: (req: WorkspaceRequest) => Promise<void>,
  done: string,
) {
  return definePage({
    method: 'post',
    path,
    access: 'workspace',
    permission,
    handler: async (req) => {
      try {
        await run(req);
      } catch (err) {
        if (!isStaleVersion(err)) throw err;
        return page(req, { status: 409, flash: stale });
      }
      return { redirect: `${req.base}/settings/${done}` };
    },
  });
}

/** Settings: API tokens and wall views (both shown once when created). */
export function tokenPages(): PageDef[] {
  return [
    definePage({ method: 'get', path: '/settings/tokens', access: 'workspace', handler: (req) => tokensPage(req) }),
    definePage({
      method: 'post',
      path: '/settings/tokens',
      access: 'workspace',
      permission: 'tokens:manage',
      handler: async (req) => {
        const values = {
          name: req.form.name ?? '',
          role: req.form.role ?? '',
          expiresInDays: req.form.expiresInDays ?? '',
        };
        return answerForm(
          async () => {
            const days = given(values.expiresInDays);
            const input = parseOrThrow(
              createTokenSchema,
              { name: values.name, role: values.role, ...(days ? { expiresInDays: Number(days) } : {}) },
              'token',
            );
            const created = await createToken(req.deps, { ctx: req.ctx, input });
            // The secret is in this answer only: a page, not a redirect (it must not travel in a URL).
            return tokensPage(req, { created });
          },
          {
            fields: ['name', 'role', 'expiresInDays'],
            again: (issues, status) => tokensPage(req, { status, form: { values, errors: issues.byField } }),
          },
        );
      },
    }),
    removal(
      '/settings/tokens/:id/revoke',
      'tokens:manage',
      tokensPage,
      (req) => deleteToken(req.deps, { ctx: withFormVersion(req.ctx, req.form), input: { id: req.params.id! } }),
      'tokens?done=revoked',
    ),
    definePage({ method: 'get', path: '/settings/wall', access: 'workspace', handler: (req) => wallPage(req) }),
    definePage({
      method: 'post',
      path: '/settings/wall',
      access: 'workspace',
      permission: 'wallTokens:manage',
      handler: async (req) => {
        const values = { name: req.form.name ?? '' };
        return answerForm(
          async () => {
            const created = await createWallToken(req.deps, {
              ctx: req.ctx,
              input: parseOrThrow(createWallTokenSchema, values, 'wall view'),
            });
            return wallPage(req, { created });
          },
          {
            fields: ['name'],
            again: (issues, status) => wallPage(req, { status, form: { values, errors: issues.byField } }),
          },
        );
      },
    }),
    removal(
      '/settings/wall/:id/delete',
      'wallTokens:manage',
      wallPage,
      (req) => deleteWallToken(req.deps, { ctx: withFormVersion(req.ctx, req.form), input: { id: req.params.id! } }),
      'wall?done=deleted',
    ),
  ];
}
