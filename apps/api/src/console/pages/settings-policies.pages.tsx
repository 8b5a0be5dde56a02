import { parseOrThrow } from '@statusvane/shared';
import { z } from 'zod';
import { can } from '../../services/auth/permissions.js';
import { createEscalationPolicy } from '../../services/escalation-policies/create-escalation-policy.js';
import { deleteEscalationPolicy } from '../../services/escalation-policies/delete-escalation-policy.js';
import { getEscalationPolicy } from '../../services/escalation-policies/get-escalation-policy.js';
import { listEscalationPolicies } from '../../services/escalation-policies/list-escalation-policies.js';
import {
  createEscalationPolicySchema,
  updateEscalationPolicySchema,
} from '../../services/escalation-policies/policy-input.js';
import type { EscalationPolicyRecord } from '../../services/escalation-policies/policy-record.js';
import { revealSigningSecret } from '../../services/escalation-policies/reveal-signing-secret.js';
import { rotateSigningSecret } from '../../services/escalation-policies/rotate-signing-secret.js';
import { updateEscalationPolicy } from '../../services/escalation-policies/update-escalation-policy.js';
import type { SigningSecretRecord } from '../../services/escalation-policies/signing-secret-record.js';
import {
  testEscalationPolicy,
  type PolicyTestResult,
} from '../../services/escalation-policies/test-escalation-policy.js';
import { Button, LinkButton } from '../../views/components/button.js';
import { EmptyState } from '../../views/components/empty-state.js';
import { Flash } from '../../views/components/flash.js';
import { PostForm, VersionField } from '../../views/components/form.js';
import { DataTable, type Column } from '../../views/components/table.js';
import type { FlashMessage } from '../../views/layout.js';
import { definePage, type PageAnswer, type PageDef, type WorkspaceRequest } from '../define-page.js';
import {
  answerForm,
  type FormIssues,
  formIssuesOf,
  queryOf,
  readAll,
  withFormVersion,
  staleFlash,
} from '../page-forms.js';
import {
  formValuesOf,
  LadderFields,
  PolicySettingsFields,
  policyFieldOf,
  policyFields,
  settingsFromForm,
  stepsFromForm,
} from '../settings/policy-form.js';
import { SecretOnce } from '../settings/secret-once.js';
import { SettingsLayout } from '../settings/settings-layout.js';

const NOTICES: Record<string, FlashMessage> = {
  created: { kind: 'notice', text: 'Policy created.' },
  saved: { kind: 'notice', text: 'Policy saved.' },
  ladder: { kind: 'notice', text: 'Ladder replaced: it applies from the next incident.' },
  default: { kind: 'notice', text: 'This is now the workspace’s default policy.' },
  deleted: { kind: 'notice', text: 'Policy deleted.' },
};
const doneQuery = z.object({ done: z.enum(['created', 'saved', 'ladder', 'default', 'deleted']).optional() }).strict();
/** Steps a new ladder form offers. */
const NEW_STEPS = 3;
const stale = staleFlash('This policy');

/** One line per step: "after 5 min, major and above: email a@b.c, slack https://hooks.slack.com/…". */
function LadderSummary({ policy }: { policy: EscalationPolicyRecord }) {
  return (
    <ol class="ladder">
      {policy.steps.map((s) => (
        <li>
          <strong>After {s.delayMinutes} min</strong>
          {s.minImpact !== 'none' ? `, ${s.minImpact} and above` : ''}:{' '}
          {s.targets.map((t, j) => (
            <>
              {j > 0 && ', '}
              <span class="tag">{t.channel}</span> <span class="mono">{t.display}</span>
            </>
          ))}
        </li>
      ))}
    </ol>
  );
}

/** The policies, the default marked; for managers, "new policy" and the webhook signing secret. */
async function policiesPage(
  req: WorkspaceRequest,
  opts: { status?: number; flash?: FlashMessage; secret?: SigningSecretRecord } = {},
): Promise<PageAnswer> {
  const done = queryOf(doneQuery, req.query, 'escalation policies').done;
  const policies = await readAll((q) => listEscalationPolicies(req.deps, { ctx: req.ctx, input: q }));
  const manager = can(req.ctx.role, 'escalationPolicies:manage');
  const columns: Array<Column<EscalationPolicyRecord>> = [
    {
      header: 'Policy',
      class: 'name',
      cell: (p) => (
        <>
          <a href={`${req.base}/settings/escalation-policies/${p.id}`}>{p.name}</a>
          {p.isDefault && <span class="tag tag-ok">Default</span>}
        </>
      ),
    },
    { header: 'Steps', cell: (p) => `${p.steps.length} step${p.steps.length === 1 ? '' : 's'}` },
    {
      header: 'Repeats',
      cell: (p) => (p.repeatCount ? `${p.repeatCount} more time${p.repeatCount === 1 ? '' : 's'}` : 'Once'),
    },
    { header: 'Mode', cell: (p) => (p.silent ? 'Silent' : 'Pages') },
  ];
  return {
    status: opts.status ?? 200,
    view: (
      <SettingsLayout
        req={req}
        section="escalation"
        title="Escalation policies"
        lead="Who gets paged when an incident opens, and when, until someone acknowledges."
        flash={opts.flash ?? (done ? NOTICES[done] : null)}
        actions={
          manager ? (
            <LinkButton variant="primary" href={`${req.base}/settings/escalation-policies/new`}>
              New policy
            </LinkButton>
          ) : undefined
        }
      >
        {policies.length === 0 ? (
          <EmptyState title="No escalation policies">Without one, incidents open and page nobody.</EmptyState>
        ) : (
          <DataTable
            caption="Escalation policies"
            captionHidden
            class="policies"
            columns={columns}
            rows={policies}
            rowId={(p) => `policy-${p.id}`}
          />
        )}
        {manager && (
          <section class="card" aria-labelledby="signing-h">
            <h2 id="signing-h">Webhook signing secret</h2>
            <p class="muted">
              Webhook pages carry <code>Statusvane-Signature</code>, an HMAC-SHA256 under this secret: receivers verify
              it. It can be shown once; rotating makes a new one (shown once) and signs with it alone from then on.
            </p>
            {opts.secret?.secret && (
              <SecretOnce
                id="signing-secret"
                label={`Signing secret (generation ${opts.secret.generation})`}
                value={opts.secret.secret}
                note="Copy it now: it is not shown again. Rotate to get a new one."
              />
            )}
            <div class="actions-row">
              <PostForm action={`${req.base}/settings/escalation-policies/signing-secret/reveal`} csrf={req.csrf}>
                <Button variant="secondary">Reveal (once)</Button>
              </PostForm>
              <PostForm action={`${req.base}/settings/escalation-policies/signing-secret/rotate`} csrf={req.csrf}>
                <Button
                  variant="secondary"
                  confirm="Rotate the signing secret? Pages are signed with the new one only from now on: add it to your receivers."
                >
                  Rotate
                </Button>
              </PostForm>
            </div>
          </section>
        )}
      </SettingsLayout>
    ),
  };
}

/** A new policy: settings and a ladder of NEW_STEPS steps. */
function newPolicyPage(
  req: WorkspaceRequest,
  opts: { status?: number; values?: Record<string, string>; issues?: FormIssues } = {},
): PageAnswer {
  const errors = opts.issues?.byField ?? {};
  return {
    status: opts.status ?? 200,
    view: (
      <SettingsLayout req={req} section="escalation" title="New escalation policy">
        {opts.issues && opts.issues.rest.length > 0 && <Flash kind="error">{opts.issues.rest.join(' ')}</Flash>}
        <PostForm action={`${req.base}/settings/escalation-policies/new`} csrf={req.csrf} label="New escalation policy">
          <section class="card form-card">
            <h2>Policy</h2>
            <PolicySettingsFields values={opts.values ?? { repeatCount: '0' }} errors={errors} />
          </section>
          <section class="card form-card">
            <h2>Ladder</h2>
            <p class="muted">
              Each step pages its targets this many minutes after the incident started, unless someone acknowledged.
              Keys and URLs are stored encrypted and never shown again.
            </p>
            <LadderFields steps={NEW_STEPS} values={opts.values ?? {}} errors={errors} />
          </section>
          <div class="form-actions">
            <Button>Create policy</Button>
            <a href={`${req.base}/settings/escalation-policies`}>Cancel</a>
          </div>
        </PostForm>
      </SettingsLayout>
    ),
  };
}

/** A policy: its ladder; for managers, its settings, the ladder form, test send, make default, delete. */
async function policyPage(
  req: WorkspaceRequest,
  opts: {
    status?: number;
    flash?: FlashMessage;
    settings?: { values: Record<string, string>; issues: FormIssues };
    ladder?: { values: Record<string, string>; issues: FormIssues };
    tests?: PolicyTestResult[];
  } = {},
): Promise<PageAnswer> {
  const done = queryOf(doneQuery, req.query, 'escalation policy').done;
  const policy = await getEscalationPolicy(req.deps, { ctx: req.ctx, input: { id: req.params.id! } });
  const manager = can(req.ctx.role, 'escalationPolicies:manage');
  const action = `${req.base}/settings/escalation-policies/${policy.id}`;
  const current = formValuesOf(policy);
  const steps = Math.max(policy.steps.length + 1, 2);
  const issuesText = [...(opts.settings?.issues.rest ?? []), ...(opts.ladder?.issues.rest ?? [])];
  return {
    status: opts.status ?? 200,
    view: (
      <SettingsLayout
        req={req}
        section="escalation"
        title={policy.name}
        lead={
          <>
            {policy.isDefault ? 'The workspace’s default policy. ' : ''}
            {policy.silent ? 'Silent: pages are recorded, not sent.' : 'Pages its targets until someone acknowledges.'}
          </>
        }
        flash={opts.flash ?? (done ? NOTICES[done] : null)}
      >
        <p class="breadcrumb">
          <a href={`${req.base}/settings/escalation-policies`}>Escalation policies</a>
        </p>
        {issuesText.length > 0 && <Flash kind="error">{issuesText.join(' ')}</Flash>}
        <section class="card" aria-labelledby="ladder-h">
          <h2 id="ladder-h">Ladder</h2>
          <LadderSummary policy={policy} />
          <p class="muted">
            {policy.repeatCount
              ? `Runs ${policy.repeatCount + 1} times in all while nobody acknowledges.`
              : 'Runs once.'}
          </p>
          {manager && (
            <div class="actions-row">
              <PostForm action={`${action}/test`} csrf={req.csrf}>
                <Button variant="secondary">Send a test to every target</Button>
              </PostForm>
              {!policy.isDefault && (
                <PostForm action={`${action}/default`} csrf={req.csrf}>
                  <VersionField version={policy.version} />
                  <Button variant="secondary">Make default</Button>
                </PostForm>
              )}
              <PostForm action={`${action}/delete`} csrf={req.csrf}>
                <VersionField version={policy.version} />
                <Button
                  variant="danger"
                  confirm={`Delete the policy ${policy.name}? Monitors using it fall back to the default.`}
                >
                  Delete
                </Button>
              </PostForm>
            </div>
          )}
        </section>
        {opts.tests && (
          <section class="card" aria-labelledby="tests-h">
            <h2 id="tests-h">Test send</h2>
            <DataTable
              caption="What each target made of the test message"
              columns={[
                { header: 'Step', cell: (t: PolicyTestResult) => String(t.step + 1) },
                { header: 'Channel', cell: (t: PolicyTestResult) => t.channel },
                {
                  header: 'Target',
                  class: 'target',
                  cell: (t: PolicyTestResult) => <span class="mono">{t.display}</span>,
                },
                {
                  header: 'Result',
                  cell: (t: PolicyTestResult) =>
                    t.ok ? (
                      <span class="tag tag-ok">Delivered{t.status ? ` (${t.status})` : ''}</span>
                    ) : (
                      <span class="tag tag-bad">Failed: {t.error ?? `HTTP ${t.status}`}</span>
                    ),
                },
              ]}
              rows={opts.tests}
              rowId={(t) => `test-${t.step}-${t.display}`}
            />
          </section>
        )}
        {manager && (
          <>
            <section class="card form-card" aria-labelledby="settings-h">
              <h2 id="settings-h">Settings</h2>
              <PostForm action={`${action}/settings`} csrf={req.csrf} label="Policy settings">
                <VersionField version={policy.version} />
                <PolicySettingsFields
                  values={opts.settings?.values ?? current}
                  errors={opts.settings?.issues.byField ?? {}}
                />
                <div class="form-actions">
                  <Button>Save settings</Button>
                </div>
              </PostForm>
            </section>
            <section class="card form-card" aria-labelledby="ladder-form-h">
              <h2 id="ladder-form-h">Change the ladder</h2>
              <p class="muted">
                The ladder is replaced whole. Keys and URLs are stored encrypted and never shown: enter every target
                again (email addresses are filled in). It applies from the next incident.
              </p>
              <PostForm action={`${action}/ladder`} csrf={req.csrf} label="Change the ladder">
                <VersionField version={policy.version} />
                <LadderFields
                  steps={steps}
                  values={opts.ladder?.values ?? current}
                  errors={opts.ladder?.issues.byField ?? {}}
                />
                <div class="form-actions">
                  <Button>Replace the ladder</Button>
                </div>
              </PostForm>
            </section>
          </>
        )}
      </SettingsLayout>
    ),
  };
}

/** A policy write from its page: done, its page again with the issues (400/409), or with how it is now (stale: 409). */
function policyWrite(
  verb: string,
  kind: 'settings' | 'ladder' | 'plain',
  run: (req: WorkspaceRequest) => Promise<unknown>,
  done: string,
) {
  return definePage({
    method: 'post',
    path: `/settings/escalation-policies/:id/${verb}`,
    access: 'workspace',
    permission: 'escalationPolicies:manage',
    handler: (req) =>
      answerForm(
        async () => {
          await run(req);
          return done === 'deleted'
            ? { redirect: `${req.base}/settings/escalation-policies?done=deleted` }
            : { redirect: `${req.base}/settings/escalation-policies/${req.params.id!}?done=${done}` };
        },
        {
          fields: policyFields(20),
          fieldOf: policyFieldOf,
          stale: () => policyPage(req, { status: 409, flash: stale }),
          again: (issues, status) =>
            kind === 'plain'
              ? policyPage(req, { status, flash: { kind: 'error', text: issues.rest.join(' ') } })
              : policyPage(req, { status, [kind]: { values: req.form, issues } }),
        },
      ),
  });
}

/** The signing secret, revealed or rotated: shown once on the list page. */
function secretAction(verb: 'reveal' | 'rotate', run: typeof revealSigningSecret) {
  return definePage({
    method: 'post',
    path: `/settings/escalation-policies/signing-secret/${verb}`,
    access: 'workspace',
    permission: 'escalationPolicies:manage',
    handler: async (req) => {
      try {
        const secret = await run(req.deps, { ctx: req.ctx });
        return policiesPage(req, {
          secret,
          flash: { kind: 'notice', text: verb === 'rotate' ? 'Signing secret rotated.' : 'Signing secret revealed.' },
        });
      } catch (err) {
        const issues = formIssuesOf(err, []);
        if (!issues) throw err;
        return policiesPage(req, { status: 409, flash: { kind: 'error', text: issues.rest.join(' ') } });
      }
    },
  });
}

/** Settings: escalation policies, their ladders, test sends, the default, and the webhook signing secret. */
export function policyPages(): PageDef[] {
  const ctxOf = (req: WorkspaceRequest) => withFormVersion(req.ctx, req.form);
  return [
    definePage({
      method: 'get',
      path: '/settings/escalation-policies',
      access: 'workspace',
      handler: (req) => policiesPage(req),
    }),
    secretAction('reveal', revealSigningSecret),
    secretAction('rotate', rotateSigningSecret),
    definePage({
      method: 'get',
      path: '/settings/escalation-policies/new',
      access: 'workspace',
      handler: async (req) =>
        can(req.ctx.role, 'escalationPolicies:manage')
          ? newPolicyPage(req)
          : { redirect: `${req.base}/settings/escalation-policies` },
    }),
    definePage({
      method: 'post',
      path: '/settings/escalation-policies/new',
      access: 'workspace',
      permission: 'escalationPolicies:manage',
      handler: async (req) => {
        return answerForm(
          async () => {
            const input = parseOrThrow(
              createEscalationPolicySchema,
              { ...settingsFromForm(req.form), steps: stepsFromForm(req.form, NEW_STEPS) },
              'escalation policy',
            );
            const created = await createEscalationPolicy(req.deps, { ctx: req.ctx, input });
            return { redirect: `${req.base}/settings/escalation-policies/${created.id}?done=created` };
          },
          {
            fields: policyFields(NEW_STEPS),
            fieldOf: policyFieldOf,
            again: (issues, status) => newPolicyPage(req, { status, values: req.form, issues }),
          },
        );
      },
    }),
    definePage({
      method: 'get',
      path: '/settings/escalation-policies/:id',
      access: 'workspace',
      handler: (req) => policyPage(req),
    }),
    policyWrite(
      'settings',
      'settings',
      (req) => updateEscalationPolicyFrom(req, ctxOf(req), settingsFromForm(req.form)),
      'saved',
    ),
    policyWrite(
      'ladder',
      'ladder',
      (req) => updateEscalationPolicyFrom(req, ctxOf(req), { steps: stepsFromForm(req.form, 20) }),
      'ladder',
    ),
    policyWrite(
      'default',
      'plain',
      (req) => updateEscalationPolicyFrom(req, ctxOf(req), { isDefault: true }),
      'default',
    ),
    policyWrite(
      'delete',
      'plain',
      (req) => deleteEscalationPolicy(req.deps, { ctx: ctxOf(req), input: { id: req.params.id! } }),
      'deleted',
    ),
    definePage({
      method: 'post',
      path: '/settings/escalation-policies/:id/test',
      access: 'workspace',
      permission: 'escalationPolicies:manage',
      handler: async (req) => {
        const tests = await testEscalationPolicy(req.deps, { ctx: req.ctx, input: { id: req.params.id! } });
        const failed = tests.filter((t) => !t.ok).length;
        return policyPage(req, {
          tests,
          flash: failed
            ? { kind: 'error', text: `${failed} of ${tests.length} targets did not take the test message.` }
            : { kind: 'notice', text: `Every target (${tests.length}) took the test message.` },
        });
      },
    }),
  ];
}

/** PATCH /escalation-policies/{id} with the form's changes, judged by the API's own schema. */
function updateEscalationPolicyFrom(req: WorkspaceRequest, ctx: WorkspaceRequest['ctx'], changes: unknown) {
  return updateEscalationPolicy(req.deps, {
    ctx,
    input: { id: req.params.id!, changes: parseOrThrow(updateEscalationPolicySchema, changes, 'escalation policy') },
  });
}
