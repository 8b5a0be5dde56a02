import { parseOrThrow, ROLES, type Role } from '@statusvane/shared';
import { can } from '../../services/auth/permissions.js';
import { addMember, addMemberSchema } from '../../services/members/add-member.js';
import { createInvitation } from '../../services/members/create-invitation.js';
import { listMembers } from '../../services/members/list-members.js';
import type { MemberRecord } from '../../services/members/member-record.js';
import { removeMember } from '../../services/members/remove-member.js';
import { updateMember, updateMemberSchema } from '../../services/members/update-member.js';
import { Button } from '../../views/components/button.js';
import { Field, PostForm, SelectField, VersionField } from '../../views/components/form.js';
import { DataTable, type Column } from '../../views/components/table.js';
import type { FlashMessage } from '../../views/layout.js';
import { definePage, type PageAnswer, type PageDef, type WorkspaceRequest } from '../define-page.js';
import {
  answerForm,
  formIssuesOf,
  isStaleVersion,
  issueStatus,
  queryOf,
  readAll,
  withFormVersion,
  staleFlash,
} from '../page-forms.js';
import { SettingsLayout } from '../settings/settings-layout.js';
import { z } from 'zod';

const ROLE_WORDS: Record<Role, string> = { owner: 'Owner', admin: 'Admin', member: 'Member', viewer: 'Viewer' };
const roleOptions = ROLES.map((r) => ({ value: r, label: ROLE_WORDS[r] }));

const NOTICES: Record<string, FlashMessage> = {
  added: { kind: 'notice', text: 'Member added. Without a password yet, they get an invitation mail to choose one.' },
  role: { kind: 'notice', text: 'Role changed: it applies from their next request.' },
  removed: { kind: 'notice', text: 'Member removed: their access to this workspace ended at once.' },
  invited: { kind: 'notice', text: 'Invitation sent again: the older link no longer works.' },
};
const query = z.object({ done: z.enum(['added', 'role', 'removed', 'invited']).optional() }).strict();

/** The members list, and for managers the add form and each row's role, remove and resend controls. */
async function membersPage(
  req: WorkspaceRequest,
  opts: {
    status?: number;
    flash?: FlashMessage;
    add?: { values: Record<string, string>; errors: Record<string, string> };
  } = {},
): Promise<PageAnswer> {
  const done = queryOf(query, req.query, 'members').done;
  const members = await readAll((q) => listMembers(req.deps, { ctx: req.ctx, input: q }));
  const manager = can(req.ctx.role, 'members:manage');
  // Only an owner grants, removes or demotes `owner` (the services' rule): others are not offered it.
  const grantable = req.ctx.role === 'owner' ? roleOptions : roleOptions.filter((o) => o.value !== 'owner');
  const mayChange = (m: MemberRecord) => req.ctx.role === 'owner' || m.role !== 'owner';
  const action = (m: MemberRecord, verb: string) => `${req.base}/settings/members/${m.userId}/${verb}`;
  const columns: Array<Column<MemberRecord>> = [
    {
      header: 'Member',
      class: 'name',
      cell: (m) => (
        <>
          <strong>{m.name || m.email}</strong>
          {m.name && <span class="sub muted">{m.email}</span>}
        </>
      ),
    },
    {
      header: 'Role',
      class: 'role',
      cell: (m) =>
        manager && mayChange(m) ? (
          <PostForm action={action(m, 'role')} csrf={req.csrf} class="inline-form" label={`Role of ${m.email}`}>
            <VersionField version={m.version} />
            <label class="visually-hidden" htmlFor={`role-${m.userId}`}>
              Role of {m.email}
            </label>
            <select id={`role-${m.userId}`} name="role">
              {grantable.map((o) => (
                <option value={o.value} selected={o.value === m.role}>
                  {o.label}
                </option>
              ))}
            </select>
            <Button variant="secondary" small label={`Change the role of ${m.email}`}>
              Change
            </Button>
          </PostForm>
        ) : (
          ROLE_WORDS[m.role]
        ),
    },
    {
      header: 'Sign-in',
      class: 'signin',
      cell: (m) =>
        m.passwordSet ? (
          <span class="tag tag-ok">Password set</span>
        ) : (
          <span class="tag tag-wait">Invited, no password yet</span>
        ),
    },
    { header: 'Joined', class: 'when', cell: (m) => m.createdAt.slice(0, 10) },
  ];
  if (manager)
    columns.push({
      header: 'Actions',
      hiddenHeader: true,
      class: 'actions',
      cell: (m) =>
        mayChange(m) && (
          <div class="actions-row">
            {!m.passwordSet && (
              <PostForm action={action(m, 'invitation')} csrf={req.csrf}>
                <Button variant="secondary" small label={`Send the invitation to ${m.email} again`}>
                  Resend invitation
                </Button>
              </PostForm>
            )}
            <PostForm action={action(m, 'remove')} csrf={req.csrf}>
              <VersionField version={m.version} />
              <Button
                variant="danger"
                small
                label={`Remove ${m.email}`}
                confirm={`Remove ${m.email} from ${req.ctx.workspace.name}? Their access ends at once.`}
              >
                Remove
              </Button>
            </PostForm>
          </div>
        ),
    });
  const add = opts.add ?? { values: {}, errors: {} };
  return {
    status: opts.status ?? 200,
    view: (
      <SettingsLayout
        req={req}
        section="members"
        title="Members"
        lead={`Who can sign in to ${req.ctx.workspace.name}, and with which role.`}
        flash={opts.flash ?? (done ? NOTICES[done] : null)}
      >
        <DataTable
          caption="Members"
          captionHidden
          class="members"
          columns={columns}
          rows={members}
          rowId={(m) => `member-${m.userId}`}
        />
        {manager && (
          <section class="card form-card add-card" aria-labelledby="add-member-h">
            <h2 id="add-member-h">Add a member</h2>
            <p class="muted">
              Someone without a Statusvane password gets a mail with a link to choose one (valid 48 hours).
            </p>
            <PostForm action={`${req.base}/settings/members`} csrf={req.csrf} label="Add a member" class="row-form">
              <Field
                name="email"
                label="Email"
                type="email"
                autocomplete="off"
                required
                value={add.values.email}
                error={add.errors.email}
              />
              <SelectField
                name="role"
                label="Role"
                options={grantable}
                value={add.values.role ?? 'member'}
                error={add.errors.role}
              />
              <div class="field">
                <Button>Add member</Button>
              </div>
            </PostForm>
          </section>
        )}
      </SettingsLayout>
    ),
  };
}

/** A refused write on the members page: the page again, with what went wrong (and the current values after a stale one). */
async function refused(req: WorkspaceRequest, err: unknown, who: string): Promise<PageAnswer> {
  if (isStaleVersion(err))
    return membersPage(req, {
      status: 409,
      flash: staleFlash(who),
    });
  const issues = formIssuesOf(err, []);
  if (!issues) throw err;
  return membersPage(req, { status: issueStatus(err), flash: { kind: 'error', text: issues.rest.join(' ') } });
}

const memberAction = (verb: string, run: (req: WorkspaceRequest) => Promise<unknown>, done: string) =>
  definePage({
    method: 'post',
    path: `/settings/members/:userId/${verb}`,
    access: 'workspace',
    permission: 'members:manage',
    handler: async (req) => {
      try {
        await run(req);
      } catch (err) {
        return refused(req, err, 'This member');
      }
      return { redirect: `${req.base}/settings/members?done=${done}` };
    },
  });

/** Settings: members, their roles and invitations. */
export function memberPages(): PageDef[] {
  return [
    definePage({
      method: 'get',
      path: '/settings',
      access: 'workspace',
      handler: async (req) => ({ redirect: `${req.base}/settings/members` }),
    }),
    definePage({ method: 'get', path: '/settings/members', access: 'workspace', handler: (req) => membersPage(req) }),
    definePage({
      method: 'post',
      path: '/settings/members',
      access: 'workspace',
      permission: 'members:manage',
      handler: async (req) => {
        const values = { email: req.form.email ?? '', role: req.form.role ?? '' };
        return answerForm(
          async () => {
            const input = parseOrThrow(addMemberSchema, values, 'member');
            await addMember(req.deps, { ctx: req.ctx, input });
            return { redirect: `${req.base}/settings/members?done=added` };
          },
          {
            fields: ['email', 'role'],
            again: (issues, status) =>
              membersPage(req, {
                status,
                add: { values, errors: issues.byField },
                ...(issues.rest.length ? { flash: { kind: 'error', text: issues.rest.join(' ') } } : {}),
              }),
          },
        );
      },
    }),
    memberAction(
      'role',
      (req) =>
        updateMember(req.deps, {
          ctx: withFormVersion(req.ctx, req.form),
          input: { userId: req.params.userId!, changes: parseOrThrow(updateMemberSchema, { role: req.form.role }) },
        }),
      'role',
    ),
    memberAction(
      'remove',
      (req) =>
        removeMember(req.deps, { ctx: withFormVersion(req.ctx, req.form), input: { userId: req.params.userId! } }),
      'removed',
    ),
    memberAction(
      'invitation',
      (req) => createInvitation(req.deps, { ctx: req.ctx, input: { userId: req.params.userId! } }),
      'invited',
    ),
  ];
}
