import { userWorkspaces } from '../../services/auth/session-context.js';
import { changePassword } from '../../services/users/change-password.js';
import { isPlausiblePassword } from '../../services/users/password-policy.js';
import {
  confirmTotpEnrolment,
  pendingTotpEnrolment,
  recoveryCodesLeft,
  removeTotp,
  startTotpEnrolment,
} from '../../services/users/two-factor.js';
import { Button } from '../../views/components/button.js';
import { EmptyState } from '../../views/components/empty-state.js';
import { Field, PostForm } from '../../views/components/form.js';
import { QrCode } from '../../views/components/qr-code.js';
import { ConsoleLayout, type FlashMessage } from '../../views/layout.js';
import { definePage, type PageAnswer, type PageDef, type UserRequest } from '../define-page.js';
import { workspaceBase } from '../workspace-paths.js';
import { judgeNewPassword, NewPasswordFields } from './password.pages.js';

const NOTICES: Record<string, FlashMessage> = {
  'password-changed': {
    kind: 'notice',
    text: 'Your password is changed. Other browsers signed in to your account were signed out.',
  },
  'two-factor-off': { kind: 'notice', text: 'Two-factor sign-in is off.' },
};

interface AccountState {
  errors?: Record<string, string>;
  /** Recovery codes just made: shown this once. */
  codes?: string[];
  flash?: FlashMessage | null;
}

async function accountView(req: UserRequest, state: AccountState) {
  const { user } = req.session;
  const pending = user.twoFactor ? null : await pendingTotpEnrolment(req.deps, { userId: user.id });
  const left = user.twoFactor ? await recoveryCodesLeft(req.deps, user.id) : 0;
  const errors = state.errors ?? {};
  return (
    <ConsoleLayout chrome={req.chrome} title="Your account" section="account" flash={state.flash}>
      <div class="page-header">
        <div>
          <h1>Your account</h1>
          <p>{user.email}</p>
        </div>
      </div>
      <div class="narrow">
        {state.codes && (
          <section class="card" aria-labelledby="codes-title">
            <h2 id="codes-title">Your recovery codes</h2>
            <p>
              Two-factor sign-in is on. Keep these codes somewhere safe: each one signs you in once if you lose your
              authenticator. They are shown only now.
            </p>
            <ol class="codes" id="recovery-codes">
              {state.codes.map((c) => (
                <li>{c}</li>
              ))}
            </ol>
            <button type="button" class="btn btn-secondary btn-sm" data-copy="recovery-codes" data-js-only>
              Copy codes
            </button>
          </section>
        )}
        <section class="card" aria-labelledby="password-title">
          <h2 id="password-title">Password</h2>
          <PostForm action="/app/account/password" csrf={req.csrf}>
            <input type="text" name="username" value={user.email} autocomplete="username" hidden readOnly />
            <Field
              name="current"
              label="Current password"
              type="password"
              autocomplete="current-password"
              required
              error={errors.current}
            />
            <NewPasswordFields errors={errors} />
            <div class="form-actions">
              <Button>Change password</Button>
            </div>
          </PostForm>
        </section>
        <section class="card" id="two-factor" aria-labelledby="two-factor-title">
          <h2 id="two-factor-title">Two-factor sign-in</h2>
          {user.twoFactor ? (
            <>
              <p>
                On. Signing in asks for a code from your authenticator app. {left} recovery code{left === 1 ? '' : 's'}{' '}
                left.
              </p>
              <PostForm action="/app/account/two-factor/remove" csrf={req.csrf}>
                <Field
                  name="password"
                  label="Your password, to turn it off"
                  type="password"
                  autocomplete="current-password"
                  required
                  error={errors.removePassword}
                />
                <Button variant="danger" confirm="Turn off two-factor sign-in?">
                  Turn off two-factor sign-in
                </Button>
              </PostForm>
            </>
          ) : pending ? (
            <>
              <p>
                Scan this code with an authenticator app (1Password, Google Authenticator, Aegis ...), or type the key
                below into it. Then enter the 6-digit code it shows.
              </p>
              <QrCode value={pending.uri} label="QR code of the two-factor key" />
              <p>
                Key: <code class="secret">{pending.secret.match(/.{1,4}/g)!.join(' ')}</code>
              </p>
              <PostForm action="/app/account/two-factor/confirm" csrf={req.csrf}>
                <Field
                  name="code"
                  label="Code from the app"
                  autocomplete="one-time-code"
                  inputMode="numeric"
                  pattern="[0-9 ]*"
                  required
                  maxLength={8}
                  error={errors.code}
                />
                <Button>Turn on two-factor sign-in</Button>
              </PostForm>
            </>
          ) : (
            <>
              <p>Off. With it on, signing in also asks for a code from an app on your phone.</p>
              <PostForm action="/app/account/two-factor/start" csrf={req.csrf}>
                <Button variant="secondary">Set up two-factor sign-in</Button>
              </PostForm>
            </>
          )}
        </section>
        <section class="card" aria-labelledby="contact-title">
          <h2 id="contact-title">Contact methods</h2>
          <p>Where pages reach you when you are on call or an escalation names you, in every workspace.</p>
          <a href="/app/account/contact-methods">Manage your contact methods</a>
        </section>
        <section class="card" aria-labelledby="apps-title">
          <h2 id="apps-title">Connected apps</h2>
          <p>Apps you allowed to use Statusvane as you, such as AI assistants over MCP.</p>
          <a href="/app/account/connected-apps">Manage your connected apps</a>
        </section>
      </div>
    </ConsoleLayout>
  );
}

const one = (v: unknown) => (typeof v === 'string' ? v : undefined);

/** The workspace chooser (`/app`) and the account page: password, second factor. */
export function accountPages(): PageDef[] {
  return [
    definePage({
      method: 'get',
      path: '/',
      access: 'user',
      handler: async (req): Promise<PageAnswer> => {
        const workspaces = await userWorkspaces(req.deps.prisma, req.session.user.id);
        if (workspaces.length === 1) return { redirect: `${workspaceBase(workspaces[0]!.slug)}/monitors` };
        return {
          view: (
            <ConsoleLayout chrome={req.chrome} title="Workspaces">
              <div class="page-header">
                <h1>Choose a workspace</h1>
              </div>
              <div class="narrow">
                {workspaces.length === 0 ? (
                  <EmptyState title="You are not in a workspace yet">
                    Ask an owner or admin of a workspace to add you as a member.
                  </EmptyState>
                ) : (
                  <ul class="choices">
                    {workspaces.map((w) => (
                      <li>
                        <a href={`${workspaceBase(w.slug)}/monitors`}>
                          <span>{w.name}</span>
                          <span class="role">{w.role}</span>
                        </a>
                      </li>
                    ))}
                  </ul>
                )}
              </div>
            </ConsoleLayout>
          ),
        };
      },
    }),
    definePage({
      method: 'get',
      path: '/account',
      access: 'user',
      handler: async (req) => {
        const done = one(req.query.done);
        return { view: await accountView(req, { flash: done ? (NOTICES[done] ?? null) : null }) };
      },
    }),
    definePage({
      method: 'post',
      path: '/account/password',
      access: 'user',
      handler: async (req): Promise<PageAnswer> => {
        const { current = '', password = '', confirm = '' } = req.form;
        const errors = {
          ...(isPlausiblePassword(current) ? {} : { current: 'Type your current password' }),
          ...judgeNewPassword(password, confirm),
        };
        if (Object.keys(errors).length > 0) return { status: 400, view: await accountView(req, { errors }) };
        const changed = await changePassword(req.deps.prisma, {
          userId: req.session.user.id,
          current,
          next: password,
          now: req.now,
          userAgent: req.userAgent,
        });
        if (!changed)
          return { status: 400, view: await accountView(req, { errors: { current: 'is not your current password' } }) };
        return {
          redirect: '/app/account?done=password-changed',
          session: { token: changed.token, expires: changed.expiresAt },
        };
      },
    }),
    definePage({
      method: 'post',
      path: '/account/two-factor/start',
      access: 'user',
      handler: async (req): Promise<PageAnswer> => {
        if (!req.session.user.twoFactor) await startTotpEnrolment(req.deps, { userId: req.session.user.id });
        return { redirect: '/app/account#two-factor' };
      },
    }),
    definePage({
      method: 'post',
      path: '/account/two-factor/confirm',
      access: 'user',
      handler: async (req): Promise<PageAnswer> => {
        const codes = await confirmTotpEnrolment(req.deps, {
          userId: req.session.user.id,
          code: req.form.code ?? '',
          now: req.now,
        });
        if (!codes)
          return {
            status: 400,
            view: await accountView(req, { errors: { code: 'is not the code the app shows now: try the next one' } }),
          };
        const session = { ...req.session, user: { ...req.session.user, twoFactor: true } };
        return { view: await accountView({ ...req, session }, { codes }) };
      },
    }),
    definePage({
      method: 'post',
      path: '/account/two-factor/remove',
      access: 'user',
      handler: async (req): Promise<PageAnswer> => {
        const removed = await removeTotp(req.deps, {
          userId: req.session.user.id,
          password: req.form.password ?? '',
          now: req.now,
        });
        if (!removed)
          return {
            status: 400,
            view: await accountView(req, { errors: { removePassword: 'is not your current password' } }),
          };
        return { redirect: '/app/account?done=two-factor-off' };
      },
    }),
  ];
}
