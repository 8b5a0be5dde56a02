import { createStatusPageSchema, parseOrThrow } from '@statusvane/shared';
import { z } from 'zod';
import { can } from '../../services/auth/permissions.js';
import type { ComponentRecord } from '../../services/components/component-record.js';
import { getComponent } from '../../services/components/get-component.js';
import { listComponents } from '../../services/components/list-components.js';
import { updateComponent, updateComponentSchema } from '../../services/components/update-component.js';
import { createStatusPage } from '../../services/status-pages/create-status-page.js';
import { deleteStatusPage } from '../../services/status-pages/delete-status-page.js';
import { getStatusPageLayout } from '../../services/status-pages/get-status-page-layout.js';
import { getStatusPage } from '../../services/status-pages/get-status-page.js';
import { listStatusPages } from '../../services/status-pages/list-status-pages.js';
import type { StatusPageRecord } from '../../services/status-pages/status-page-record.js';
import {
  updateStatusPage,
  updateStatusPageChecks,
  updateStatusPageSchema,
} from '../../services/status-pages/update-status-page.js';
import { judgeInput } from '../../services/validation.js';
import { Button, LinkButton } from '../../views/components/button.js';
import { EmptyState } from '../../views/components/empty-state.js';
import { Flash } from '../../views/components/flash.js';
import { CheckboxField, Field, PostForm, TextAreaField, VersionField } from '../../views/components/form.js';
import { StatusBadge } from '../../views/components/status-badge.js';
import { DataTable, type Column } from '../../views/components/table.js';
import { ConsoleLayout, type FlashMessage } from '../../views/layout.js';
import { definePage, type PageAnswer, type PageDef, type WorkspaceRequest } from '../define-page.js';
import { answerForm, given, queryOf, readAll, withFormVersion, type FormIssues, staleFlash } from '../page-forms.js';
import {
  BRANDING_FORM_FIELDS,
  BrandingFields,
  brandingFromForm,
  brandingValuesOf,
} from '../status-pages/branding-form.js';
import { EXTRA_SECTIONS, LayoutFields, layoutValuesOf, sectionsFromForm } from '../status-pages/layout-form.js';

const NOTICES: Record<string, FlashMessage> = {
  created: { kind: 'notice', text: 'Status page created.' },
  saved: { kind: 'notice', text: 'Status page saved.' },
  access: { kind: 'notice', text: 'Access saved.' },
  branding: { kind: 'notice', text: 'Branding saved: the public page shows it now.' },
  layout: { kind: 'notice', text: 'Layout saved: the public page shows it now.' },
  deleted: { kind: 'notice', text: 'Status page deleted.' },
  component: { kind: 'notice', text: 'Component saved.' },
};
const doneQuery = z
  .object({ done: z.enum(['created', 'saved', 'access', 'branding', 'layout', 'deleted', 'component']).optional() })
  .strict();
const stale = staleFlash('This');

/** Pages and components: two views of what the public sees, side by side in one section. */
function Tabs({ base, current }: { base: string; current: 'pages' | 'components' }) {
  return (
    <nav class="tabs" aria-label="Status pages and components">
      <a href={`${base}/status-pages`} aria-current={current === 'pages' ? 'page' : undefined}>
        Pages
      </a>
      <a href={`${base}/components`} aria-current={current === 'components' ? 'page' : undefined}>
        Components
      </a>
    </nav>
  );
}

async function statusPagesPage(req: WorkspaceRequest): Promise<PageAnswer> {
  const done = queryOf(doneQuery, req.query, 'status pages').done;
  const pages = await readAll((q) => listStatusPages(req.deps, { ctx: req.ctx, input: q }));
  const manager = can(req.ctx.role, 'statusPages:manage');
  const columns: Array<Column<StatusPageRecord>> = [
    { header: 'Page', class: 'name', cell: (p) => <a href={`${req.base}/status-pages/${p.id}`}>{p.name}</a> },
    {
      header: 'Public address',
      class: 'target',
      cell: (p) => (
        <a href={p.url} class="mono" target="_blank" rel="noopener noreferrer">
          {p.url.replace(/^https?:\/\//, '')}
        </a>
      ),
    },
    {
      header: 'Access',
      cell: (p) =>
        !p.isPublic ? (
          <span class="tag tag-bad">Not served</span>
        ) : p.passwordProtected ? (
          <span class="tag tag-wait">Password</span>
        ) : (
          <span class="tag tag-ok">Public</span>
        ),
    },
    { header: 'Custom domain', cell: (p) => p.customDomain ?? '—' },
  ];
  return {
    view: (
      <ConsoleLayout
        chrome={req.chrome}
        title="Status pages"
        section="status-pages"
        flash={done ? NOTICES[done] : null}
      >
        <div class="page-header">
          <div>
            <h1>Status pages</h1>
            <p>What your customers see: components, incidents and maintenance, live.</p>
          </div>
          {manager && (
            <LinkButton variant="primary" href={`${req.base}/status-pages/new`}>
              New status page
            </LinkButton>
          )}
        </div>
        <Tabs base={req.base} current="pages" />
        {pages.length === 0 ? (
          <EmptyState title="No status pages yet">Create one to show your components to your customers.</EmptyState>
        ) : (
          <DataTable
            caption="Status pages"
            captionHidden
            class="status-pages"
            columns={columns}
            rows={pages}
            rowId={(p) => `page-${p.id}`}
          />
        )}
      </ConsoleLayout>
    ),
  };
}

function newStatusPagePage(
  req: WorkspaceRequest,
  opts: { status?: number; values?: Record<string, string>; issues?: FormIssues } = {},
): PageAnswer {
  const v = opts.values ?? { isPublic: 'on' };
  const e = opts.issues?.byField ?? {};
  return {
    status: opts.status ?? 200,
    view: (
      <ConsoleLayout chrome={req.chrome} title="New status page" section="status-pages">
        <p class="breadcrumb">
          <a href={`${req.base}/status-pages`}>Status pages</a>
        </p>
        <div class="page-header">
          <div>
            <h1>New status page</h1>
          </div>
        </div>
        {opts.issues && opts.issues.rest.length > 0 && <Flash kind="error">{opts.issues.rest.join(' ')}</Flash>}
        <section class="card form-card">
          <PostForm action={`${req.base}/status-pages/new`} csrf={req.csrf} label="New status page">
            <Field name="name" label="Name" required maxLength={200} value={v.name} error={e.name} />
            <Field
              name="vanityUrl"
              label="Address"
              required
              maxLength={300}
              hint={`The page is served at ${req.deps.config.publicBaseUrl}/status/<address>: letters, digits and hyphens.`}
              value={v.vanityUrl}
              error={e.vanityUrl}
            />
            <CheckboxField name="isPublic" label="Serve it now" checked={v.isPublic === 'on'} />
            <div class="form-actions">
              <Button>Create page</Button>
              <a href={`${req.base}/status-pages`}>Cancel</a>
            </div>
          </PostForm>
        </section>
      </ConsoleLayout>
    ),
  };
}

type Part = 'settings' | 'access' | 'branding' | 'layout';

/** A page: its settings, branding, access (password, custom domain), layout (sections and components), and delete. */
async function statusPagePage(
  req: WorkspaceRequest,
  opts: {
    status?: number;
    flash?: FlashMessage;
    part?: Part;
    values?: Record<string, string>;
    issues?: FormIssues;
  } = {},
): Promise<PageAnswer> {
  const done = queryOf(doneQuery, req.query, 'status page').done;
  const id = req.params.id!;
  const [page, layout, components] = await Promise.all([
    getStatusPage(req.deps, { ctx: req.ctx, input: { id } }),
    getStatusPageLayout(req.deps, { ctx: req.ctx, input: { id } }),
    readAll((q) => listComponents(req.deps, { ctx: req.ctx, input: q })),
  ]);
  const manager = can(req.ctx.role, 'statusPages:manage');
  const action = `${req.base}/status-pages/${page.id}`;
  const valuesFor = (part: Part, current: Record<string, string>) =>
    opts.part === part && opts.values ? opts.values : current;
  const errorsFor = (part: Part) => (opts.part === part ? (opts.issues?.byField ?? {}) : {});
  const layoutValues = valuesFor('layout', layoutValuesOf(layout));
  const rows = Math.max(layout.sections.length, 1) + EXTRA_SECTIONS;
  return {
    status: opts.status ?? 200,
    view: (
      <ConsoleLayout
        chrome={req.chrome}
        title={page.name}
        section="status-pages"
        flash={opts.flash ?? (done ? NOTICES[done] : null)}
      >
        <p class="breadcrumb">
          <a href={`${req.base}/status-pages`}>Status pages</a>
        </p>
        <div class="page-header">
          <div>
            <h1>{page.name}</h1>
            <p>
              <a href={page.url} target="_blank" rel="noopener noreferrer" class="mono">
                {page.url}
              </a>
              {page.customDomain && <> · also at https://{page.customDomain}/</>}
            </p>
          </div>
          <LinkButton href={page.url}>View public page</LinkButton>
        </div>
        {opts.issues && opts.issues.rest.length > 0 && <Flash kind="error">{opts.issues.rest.join(' ')}</Flash>}
        <section class="card" aria-labelledby="layout-h">
          <h2 id="layout-h">Sections and components</h2>
          {layout.sections.length === 0 ? (
            <p class="muted">Not arranged: the page shows every component of the workspace, by name.</p>
          ) : (
            <ol class="ladder">
              {layout.sections.map((s) => (
                <li>
                  <strong>{s.name}</strong>: {s.components.map((c) => c.name).join(', ') || 'no component'}
                </li>
              ))}
            </ol>
          )}
          {manager && components.length > 0 && (
            <PostForm action={`${action}/layout`} csrf={req.csrf} label="Arrange the page">
              <VersionField version={page.version} />
              <LayoutFields values={layoutValues} errors={errorsFor('layout')} components={components} rows={rows} />
              <div class="form-actions">
                <Button>Save layout</Button>
              </div>
            </PostForm>
          )}
        </section>
        {manager && (
          <div class="two-columns">
            <div>
              <section class="card" aria-labelledby="settings-h">
                <h2 id="settings-h">Settings</h2>
                <PostForm action={action} csrf={req.csrf} label="Status page settings">
                  <VersionField version={page.version} />
                  <Field
                    name="name"
                    label="Name"
                    required
                    maxLength={200}
                    value={valuesFor('settings', { name: page.name }).name}
                    error={errorsFor('settings').name}
                  />
                  <Field
                    name="slug"
                    label="Address"
                    required
                    maxLength={300}
                    hint="Changing it frees the old address at once."
                    value={valuesFor('settings', { slug: page.slug }).slug}
                    error={errorsFor('settings').slug}
                  />
                  <CheckboxField
                    name="isPublic"
                    label="Serve the page"
                    checked={valuesFor('settings', page.isPublic ? { isPublic: 'on' } : {}).isPublic === 'on'}
                  />
                  <div class="form-actions">
                    <Button>Save</Button>
                  </div>
                </PostForm>
              </section>
              <section class="card" aria-labelledby="branding-h">
                <h2 id="branding-h">Branding</h2>
                <PostForm action={`${action}/branding`} csrf={req.csrf} label="Branding of the page">
                  <VersionField version={page.version} />
                  <BrandingFields
                    values={valuesFor('branding', brandingValuesOf(page))}
                    errors={errorsFor('branding')}
                  />
                  <div class="form-actions">
                    <Button>Save branding</Button>
                  </div>
                </PostForm>
              </section>
            </div>
            <div>
              <section class="card" aria-labelledby="access-h">
                <h2 id="access-h">Access</h2>
                <PostForm action={`${action}/access`} csrf={req.csrf} label="Access to the page">
                  <VersionField version={page.version} />
                  <Field
                    name="password"
                    label={page.passwordProtected ? 'New password' : 'Password'}
                    type="password"
                    autocomplete="new-password"
                    minLength={8}
                    maxLength={128}
                    hint={
                      page.passwordProtected
                        ? 'The page has a password (never shown). Empty: keep it.'
                        : 'Visitors must type it. Empty: no password.'
                    }
                    error={errorsFor('access').password}
                  />
                  {page.passwordProtected && (
                    <CheckboxField name="removePassword" label="Remove the password" checked={false} />
                  )}
                  <Field
                    name="customDomain"
                    label="Custom domain"
                    maxLength={253}
                    hint="A host name with a CNAME to this deployment, such as status.example.com. Empty: none."
                    value={valuesFor('access', { customDomain: page.customDomain ?? '' }).customDomain}
                    error={errorsFor('access').customDomain}
                  />
                  <div class="form-actions">
                    <Button>Save access</Button>
                  </div>
                </PostForm>
              </section>
              <section class="card" aria-labelledby="delete-h">
                <h2 id="delete-h">Delete</h2>
                <PostForm action={`${action}/delete`} csrf={req.csrf}>
                  <VersionField version={page.version} />
                  <Button variant="danger" confirm={`Delete ${page.name}? Its address stops working at once.`}>
                    Delete status page
                  </Button>
                </PostForm>
              </section>
            </div>
          </div>
        )}
      </ConsoleLayout>
    ),
  };
}

/** A PATCH of the page from one of its forms, judged as the API judges it (schema, components, domain). */
function pageWrite(part: Part | 'delete', build: (req: WorkspaceRequest) => Promise<unknown>, fields: string[]) {
  return definePage({
    method: 'post',
    path: part === 'settings' ? '/status-pages/:id' : `/status-pages/:id/${part}`,
    access: 'workspace',
    permission: 'statusPages:manage',
    handler: (req) =>
      answerForm(
        async () => {
          await build(req);
          return part === 'delete'
            ? { redirect: `${req.base}/status-pages?done=deleted` }
            : { redirect: `${req.base}/status-pages/${req.params.id!}?done=${part === 'settings' ? 'saved' : part}` };
        },
        {
          fields,
          fieldOf: (p) => p.replace(/\[(\d+)\]/g, '.$1'),
          stale: () => statusPagePage(req, { status: 409, flash: stale }),
          again: (issues, status) =>
            statusPagePage(req, part === 'delete' ? { status, issues } : { status, part, values: req.form, issues }),
        },
      ),
  });
}

/** The component list and a component's public name and description. */
async function componentsPage(req: WorkspaceRequest): Promise<PageAnswer> {
  const done = queryOf(doneQuery, req.query, 'components').done;
  const components = await readAll((q) => listComponents(req.deps, { ctx: req.ctx, input: q }));
  const columns: Array<Column<ComponentRecord>> = [
    { header: 'Status', class: 'status', cell: (c) => <StatusBadge status={c.status} /> },
    { header: 'Component', class: 'name', cell: (c) => <a href={`${req.base}/components/${c.id}`}>{c.name}</a> },
    { header: 'Description', cell: (c) => c.description || '—' },
  ];
  return {
    view: (
      <ConsoleLayout chrome={req.chrome} title="Components" section="status-pages" flash={done ? NOTICES[done] : null}>
        <div class="page-header">
          <div>
            <h1>Components</h1>
            <p>What status pages show for each monitor: its public name and description.</p>
          </div>
        </div>
        <Tabs base={req.base} current="components" />
        {components.length === 0 ? (
          <EmptyState title="No components yet">Every monitor has one: create a monitor first.</EmptyState>
        ) : (
          <DataTable
            caption="Components"
            captionHidden
            class="components"
            columns={columns}
            rows={components}
            rowId={(c) => `component-${c.id}`}
          />
        )}
      </ConsoleLayout>
    ),
  };
}

async function componentPage(
  req: WorkspaceRequest,
  opts: { status?: number; flash?: FlashMessage; values?: Record<string, string>; issues?: FormIssues } = {},
): Promise<PageAnswer> {
  const c = await getComponent(req.deps, { ctx: req.ctx, input: { id: req.params.id! } });
  const writer = can(req.ctx.role, 'components:write');
  const v = opts.values ?? { name: c.name, description: c.description };
  const e = opts.issues?.byField ?? {};
  return {
    status: opts.status ?? 200,
    view: (
      <ConsoleLayout chrome={req.chrome} title={c.name} section="status-pages" flash={opts.flash}>
        <p class="breadcrumb">
          <a href={`${req.base}/components`}>Components</a>
        </p>
        <div class="page-header">
          <div>
            <h1>{c.name}</h1>
            <p class="meta-line">
              <StatusBadge status={c.status} />
              {c.monitorId && <a href={`${req.base}/monitors/${c.monitorId}`}>Its monitor</a>}
            </p>
          </div>
        </div>
        {writer ? (
          <section class="card form-card">
            <PostForm action={`${req.base}/components/${c.id}`} csrf={req.csrf} label="Edit the component">
              <VersionField version={c.version} />
              <Field name="name" label="Public name" required maxLength={120} value={v.name} error={e.name} />
              <TextAreaField
                name="description"
                label="Description"
                rows={2}
                maxLength={500}
                value={v.description}
                error={e.description}
              />
              <div class="form-actions">
                <Button>Save</Button>
              </div>
            </PostForm>
          </section>
        ) : (
          <p>{c.description || 'No description.'}</p>
        )}
      </ConsoleLayout>
    ),
  };
}

/** Status pages (list, new, settings, access, layout, delete) and components (list, edit). */
export function statusPagePages(): PageDef[] {
  const patch = (req: WorkspaceRequest, body: unknown) =>
    judgeInput(
      updateStatusPageSchema,
      updateStatusPageChecks,
      req.deps,
      { ctx: req.ctx, params: { id: req.params.id! } },
      body,
    ).then((changes) =>
      updateStatusPage(req.deps, { ctx: withFormVersion(req.ctx, req.form), input: { id: req.params.id!, changes } }),
    );
  return [
    definePage({ method: 'get', path: '/status-pages', access: 'workspace', handler: statusPagesPage }),
    definePage({
      method: 'get',
      path: '/status-pages/new',
      access: 'workspace',
      handler: async (req) =>
        can(req.ctx.role, 'statusPages:manage') ? newStatusPagePage(req) : { redirect: `${req.base}/status-pages` },
    }),
    definePage({
      method: 'post',
      path: '/status-pages/new',
      access: 'workspace',
      permission: 'statusPages:manage',
      handler: (req) =>
        answerForm(
          async () => {
            const input = parseOrThrow(
              createStatusPageSchema,
              { name: req.form.name ?? '', vanityUrl: req.form.vanityUrl ?? '', isPublic: req.form.isPublic === 'on' },
              'status page',
            );
            const created = await createStatusPage(req.deps, { ctx: req.ctx, input });
            return { redirect: `${req.base}/status-pages/${created.id}?done=created` };
          },
          {
            fields: ['name', 'vanityUrl', 'isPublic'],
            again: (issues, status) => newStatusPagePage(req, { status, values: req.form, issues }),
          },
        ),
    }),
    definePage({
      method: 'get',
      path: '/status-pages/:id',
      access: 'workspace',
      handler: (req) => statusPagePage(req),
    }),
    pageWrite(
      'settings',
      (req) =>
        patch(req, { name: req.form.name ?? '', slug: req.form.slug ?? '', isPublic: req.form.isPublic === 'on' }),
      ['name', 'slug', 'isPublic'],
    ),
    pageWrite(
      'access',
      (req) => {
        const password = given(req.form.password);
        return patch(req, {
          ...(req.form.removePassword === 'on' ? { password: null } : password ? { password } : {}),
          customDomain: given(req.form.customDomain) ?? null,
        });
      },
      ['password', 'customDomain'],
    ),
    pageWrite('branding', (req) => patch(req, brandingFromForm(req.form)), [...BRANDING_FORM_FIELDS]),
    pageWrite(
      'layout',
      async (req) => {
        const components = await readAll((q) => listComponents(req.deps, { ctx: req.ctx, input: q }));
        return patch(req, { sections: sectionsFromForm(req.form, components, 100) });
      },
      ['sections', ...Array.from({ length: 100 }, (_, i) => `sections.${i}`)],
    ),
    pageWrite(
      'delete',
      (req) => deleteStatusPage(req.deps, { ctx: withFormVersion(req.ctx, req.form), input: { id: req.params.id! } }),
      [],
    ),
    definePage({ method: 'get', path: '/components', access: 'workspace', handler: componentsPage }),
    definePage({ method: 'get', path: '/components/:id', access: 'workspace', handler: (req) => componentPage(req) }),
    definePage({
      method: 'post',
      path: '/components/:id',
      access: 'workspace',
      permission: 'components:write',
      handler: (req) =>
        answerForm(
          async () => {
            const changes = parseOrThrow(
              updateComponentSchema,
              { name: req.form.name ?? '', description: req.form.description ?? '' },
              'component',
            );
            await updateComponent(req.deps, {
              ctx: withFormVersion(req.ctx, req.form),
              input: { id: req.params.id!, changes },
            });
            return { redirect: `${req.base}/components?done=component` };
          },
          {
            fields: ['name', 'description'],
            stale: () => componentPage(req, { status: 409, flash: stale }),
            again: (issues, status) => componentPage(req, { status, values: req.form, issues }),
          },
        ),
    }),
  ];
}
