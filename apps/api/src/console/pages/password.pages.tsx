import type { ForgotLimits } from '../../services/users/forgot-password.js';
import { requestPasswordReset } from '../../services/users/forgot-password.js';
import {
  readPasswordLink,
  setPasswordFromLink,
  type PasswordLinkPurpose,
} from '../../services/users/password-links.js';
import { newPasswordSchema, PASSWORD_MAX, PASSWORD_MIN } from '../../services/users/password-policy.js';
import { Button } from '../../views/components/button.js';
import { Field, PostForm } from '../../views/components/form.js';
import { AuthLayout, MessagePage } from '../../views/layout.js';
import { definePage, type PageAnswer, type PageDef, type PublicRequest } from '../define-page.js';

/** The rules of a new password and its confirmation, as issues by field (empty: acceptable). */
export function judgeNewPassword(password: string, confirm: string, field = 'password'): Record<string, string> {
  const parsed = newPasswordSchema.safeParse(password);
  if (!parsed.success) return { [field]: parsed.error.issues[0]!.message };
  if (password !== confirm) return { confirm: 'does not match the password above' };
  return {};
}

const PASSWORD_HINT = `${PASSWORD_MIN} to ${PASSWORD_MAX} characters. A few unrelated words make a strong one.`;

/** Fields of a new password: the password and its confirmation, with their issues beside them. */
export function NewPasswordFields(props: { errors: Record<string, string>; name?: string; label?: string }) {
  const name = props.name ?? 'password';
  return (
    <>
      <Field
        name={name}
        label={props.label ?? 'New password'}
        type="password"
        autocomplete="new-password"
        required
        minLength={PASSWORD_MIN}
        maxLength={PASSWORD_MAX}
        hint={PASSWORD_HINT}
        error={props.errors[name]}
      />
      <Field
        name="confirm"
        label="Repeat the password"
        type="password"
        autocomplete="new-password"
        required
        maxLength={PASSWORD_MAX}
        error={props.errors.confirm}
      />
    </>
  );
}

const TEXT: Record<PasswordLinkPurpose, { title: string; heading: string; lead: (email: string) => string }> = {
  invite: {
    title: 'Choose your password',
    heading: 'Welcome to Statusvane',
    lead: (email) => `Choose a password for ${email}. You will sign in with it from now on.`,
  },
  reset: {
    title: 'Choose a new password',
    heading: 'Choose a new password',
    lead: (email) => `For ${email}. Every browser signed in to this account will be signed out.`,
  },
};

function setPasswordView(
  req: PublicRequest,
  purpose: PasswordLinkPurpose,
  email: string,
  errors: Record<string, string>,
) {
  const text = TEXT[purpose];
  return (
    <AuthLayout assets={req.assets} title={text.title} heading={text.heading} lead={text.lead(email)}>
      <PostForm action={req.url} csrf={req.csrf}>
        <input type="text" name="username" value={email} autocomplete="username" hidden readOnly />
        <NewPasswordFields errors={errors} />
        <div class="form-actions">
          <Button class="btn-block">Set password</Button>
        </div>
      </PostForm>
    </AuthLayout>
  );
}

function expiredLink(req: PublicRequest, purpose: PasswordLinkPurpose): PageAnswer {
  return {
    status: 404,
    noReferrer: true,
    view: (
      <MessagePage
        assets={req.assets}
        title="This link no longer works"
        action={{ href: '/app/forgot', label: 'Ask for a new link' }}
      >
        {purpose === 'invite'
          ? 'Invitation links work once, for 48 hours, and a newer mail replaces an older one.'
          : 'Reset links work once, for one hour, and a newer mail replaces an older one.'}
      </MessagePage>
    ),
  };
}

/** The pages of a one-time link (an invitation or a reset): show the form, then set the password. */
function linkPages(purpose: PasswordLinkPurpose, path: string): PageDef[] {
  return [
    definePage({
      method: 'get',
      path,
      access: 'public',
      handler: async (req): Promise<PageAnswer> => {
        const link = await readPasswordLink(req.deps.prisma, { purpose, token: req.params.token!, now: req.now });
        if (!link) return expiredLink(req, purpose);
        return { noReferrer: true, view: setPasswordView(req, purpose, link.email, {}) };
      },
    }),
    definePage({
      method: 'post',
      path,
      access: 'public',
      handler: async (req): Promise<PageAnswer> => {
        const token = req.params.token!;
        const link = await readPasswordLink(req.deps.prisma, { purpose, token, now: req.now });
        if (!link) return expiredLink(req, purpose);
        const password = req.form.password ?? '';
        const errors = judgeNewPassword(password, req.form.confirm ?? '');
        if (Object.keys(errors).length > 0)
          return { status: 400, noReferrer: true, view: setPasswordView(req, purpose, link.email, errors) };
        const done = await setPasswordFromLink(req.deps.prisma, { purpose, token, password, now: req.now });
        if (!done) return expiredLink(req, purpose);
        // Every session of the user has ended, this browser's too: sign in with the new password.
        return { redirect: '/app/login?done=password-set', session: 'clear' };
      },
    }),
  ];
}

function forgotView(req: PublicRequest, sent: boolean) {
  return (
    <AuthLayout
      assets={req.assets}
      title="Reset your password"
      heading={sent ? 'Check your mail' : 'Reset your password'}
      lead={
        sent
          ? 'If an account uses that address, a link to choose a new password is on its way. It works once, for one hour.'
          : 'Type the email you sign in with. We will mail you a link to choose a new password.'
      }
      foot={<a href="/app/login">Back to sign in</a>}
    >
      {!sent && (
        <PostForm action="/app/forgot" csrf={req.csrf}>
          <Field name="email" label="Email" type="email" autocomplete="username" required autofocus />
          <div class="form-actions">
            <Button class="btn-block">Mail me a link</Button>
          </div>
        </PostForm>
      )}
    </AuthLayout>
  );
}

/** Forgot password (the same answer whether the address exists or not), and the invitation and reset links. */
export function passwordPages(tools: { forgotLimits: ForgotLimits }): PageDef[] {
  return [
    definePage({
      method: 'get',
      path: '/forgot',
      access: 'public',
      handler: async (req) => ({ view: forgotView(req, false) }),
    }),
    definePage({
      method: 'post',
      path: '/forgot',
      access: 'public',
      handler: async (req): Promise<PageAnswer> => {
        await requestPasswordReset(
          { ...req.deps, limits: tools.forgotLimits },
          { email: req.form.email ?? '', address: req.address, now: req.now },
        );
        return { view: forgotView(req, true) };
      },
    }),
    ...linkPages('reset', '/forgot/:token'),
    ...linkPages('invite', '/invite/:token'),
  ];
}
