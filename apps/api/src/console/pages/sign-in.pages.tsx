import { Button } from '../../views/components/button.js';
import { Field, PostForm } from '../../views/components/form.js';
import { AuthLayout, type FlashMessage } from '../../views/layout.js';
import { completeSecondFactor } from '../../services/users/two-factor.js';
import { signIn } from '../../services/users/sign-in.js';
import type { SignInGuard } from '../../services/users/sign-in-guard.js';
import { definePage, type PageAnswer, type PageDef, type PublicRequest } from '../define-page.js';
import { safeNext } from '../next-path.js';
import { endSession } from '../../services/users/sessions.js';

/** Messages the sign-in page shows after a redirect (`?done=`): fixed texts, nothing from the URL reaches the page. */
const NOTICES: Record<string, FlashMessage> = {
  'signed-out': { kind: 'notice', text: 'You are signed out.' },
  'password-set': { kind: 'notice', text: 'Your password is set. Sign in with it.' },
  'code-ended': { kind: 'error', text: 'Too many wrong codes. Sign in again.' },
};
const REFUSED = 'The email or password is not right.';

const one = (v: unknown) => (typeof v === 'string' ? v : undefined);

function loginView(req: PublicRequest, opts: { email?: string; next?: string; flash?: FlashMessage | null }) {
  const next = opts.next && safeNext(opts.next, '') ? opts.next : undefined;
  return (
    <AuthLayout
      assets={req.assets}
      title="Sign in"
      heading="Sign in"
      lead="Welcome back. Sign in to see your monitors."
      flash={opts.flash}
      foot={<>New here? Ask a workspace owner to invite you.</>}
    >
      <PostForm action="/app/login" csrf={req.csrf}>
        {next && <input type="hidden" name="next" value={next} />}
        <Field
          name="email"
          label="Email"
          type="email"
          value={opts.email}
          autocomplete="username"
          required
          autofocus={!opts.email}
        />
        <Field
          name="password"
          label="Password"
          type="password"
          autocomplete="current-password"
          required
          autofocus={!!opts.email}
        />
        <div class="form-actions">
          <Button class="btn-block">Sign in</Button>
          <a href="/app/forgot">Forgot your password?</a>
        </div>
      </PostForm>
    </AuthLayout>
  );
}

function codeView(req: PublicRequest, opts: { next?: string | undefined; error?: string }) {
  return (
    <AuthLayout
      assets={req.assets}
      title="Two-factor sign-in"
      heading="Enter your code"
      lead="Open your authenticator app and type the 6-digit code it shows for Statusvane. Lost your phone? Type one of your recovery codes instead."
    >
      <PostForm action="/app/login/code" csrf={req.csrf}>
        {opts.next && <input type="hidden" name="next" value={opts.next} />}
        <Field
          name="code"
          label="Code"
          autocomplete="one-time-code"
          inputMode="text"
          required
          autofocus
          maxLength={40}
          error={opts.error}
        />
        <div class="form-actions">
          <Button class="btn-block">Continue</Button>
        </div>
      </PostForm>
    </AuthLayout>
  );
}

/** Sign in (password, then the second factor when the user has one) and sign out. */
export function signInPages(tools: { guard: SignInGuard }): PageDef[] {
  return [
    definePage({
      method: 'get',
      path: '/login',
      access: 'public',
      handler: async (req): Promise<PageAnswer> => {
        const next = one(req.query.next);
        if (req.session && !req.session.awaitingSecondFactor) return { redirect: safeNext(next) };
        const done = one(req.query.done);
        return { view: loginView(req, { next, flash: done ? (NOTICES[done] ?? null) : null }) };
      },
    }),
    definePage({
      method: 'post',
      path: '/login',
      access: 'public',
      handler: async (req): Promise<PageAnswer> => {
        const { email = '', password = '', next } = req.form;
        const result = await signIn(
          { prisma: req.deps.prisma, guard: tools.guard },
          { email, password, address: req.address, userAgent: req.userAgent, now: req.now },
        );
        if (result.kind === 'refused')
          return {
            status: 401,
            view: loginView(req, { email: email.slice(0, 320), next, flash: { kind: 'error', text: REFUSED } }),
          };
        // The browser's previous session (another user's, or this one's) ends: one sign-in, one session id.
        if (req.session) await endSession(req.deps.prisma, req.session.id);
        if (result.kind === 'second-factor') {
          const target = safeNext(next, '');
          return {
            redirect: target ? `/app/login/code?next=${encodeURIComponent(target)}` : '/app/login/code',
            session: { token: result.token, expires: result.expiresAt },
          };
        }
        return { redirect: safeNext(next), session: { token: result.token, expires: result.expiresAt } };
      },
    }),
    definePage({
      method: 'get',
      path: '/login/code',
      access: 'pending',
      handler: async (req) => ({ view: codeView(req, { next: safeNext(one(req.query.next), '') || undefined }) }),
    }),
    definePage({
      method: 'post',
      path: '/login/code',
      access: 'pending',
      handler: async (req): Promise<PageAnswer> => {
        const next = safeNext(req.form.next, '') || undefined;
        const result = await completeSecondFactor(req.deps, {
          sessionId: req.session.id,
          code: req.form.code ?? '',
          now: req.now,
          userAgent: req.userAgent,
        });
        // A wrong code counts as a failed sign-in too: whoever has the password cannot try codes forever by
        // starting over (ten wrong codes from an address lock its pair, as ten wrong passwords would).
        if (result.kind === 'signed-in') await tools.guard.succeeded(req.session.user.email, req.address);
        else await tools.guard.failed(req.session.user.email, req.address);
        if (result.kind === 'ended') return { redirect: '/app/login?done=code-ended', session: 'clear' };
        if (result.kind === 'wrong')
          return {
            status: 401,
            view: codeView(req, {
              next,
              error: `That code is not right. ${result.attemptsLeft} ${result.attemptsLeft === 1 ? 'try' : 'tries'} left.`,
            }),
          };
        return { redirect: next ?? '/app', session: { token: result.token, expires: result.expiresAt } };
      },
    }),
    definePage({
      method: 'post',
      path: '/logout',
      access: 'public',
      handler: async (req): Promise<PageAnswer> => {
        if (req.session) await endSession(req.deps.prisma, req.session.id);
        return { redirect: '/app/login?done=signed-out', session: 'clear' };
      },
    }),
  ];
}
