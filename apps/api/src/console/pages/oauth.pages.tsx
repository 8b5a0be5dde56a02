import { ValidationError } from '@statusvane/shared';
import { sessionUserContext } from '../../services/auth/session-context.js';
import {
  AUTHORIZATION_PARAMS,
  checkAuthorizationRequest,
  type AuthorizationRequest,
} from '../../services/oauth/check-authorization-request.js';
import { redirectHost } from '../../services/oauth/connected-app-record.js';
import { createAuthorizationCode } from '../../services/oauth/create-authorization-code.js';
import { getConsent, type Consent } from '../../services/oauth/get-consent.js';
import { resourceUrl, type OAuthError } from '../../services/oauth/oauth-rules.js';
import { Button } from '../../views/components/button.js';
import { PostForm } from '../../views/components/form.js';
import { AuthLayout, MessagePage } from '../../views/layout.js';
import { definePage, type PageAnswer, type PageDef, type PublicRequest } from '../define-page.js';
import { CONSOLE_CSP } from '../security-headers.js';

/** Where the consent page lives: the service root's `/oauth/authorize`, a console page over the console's session. */
export const AUTHORIZE_PATH = '/oauth/authorize';

/** The redirect URI with the answer's parameters added (RFC 6749 §4.1.2; `iss`: RFC 9207). */
function backToClient(req: PublicRequest, redirectUri: string, params: Record<string, string | undefined>): PageAnswer {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries({ ...params, iss: req.deps.config.publicBaseUrl }))
    if (v !== undefined) url.searchParams.set(k, v);
  return { redirect: url.href };
}

const refused = (req: PublicRequest, redirectUri: string, error: OAuthError, state: string | undefined) =>
  backToClient(req, redirectUri, { error: error.error, error_description: error.description, state });

/**
 * The consent page's policy: the console's, except that its form may lead (through the 303 that answers it) to the
 * app's redirect URI: browsers apply `form-action` to the redirects after a form is sent.
 */
function consentCsp(redirectUri: string): string {
  const url = new URL(redirectUri);
  const target = url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
  return CONSOLE_CSP.replace("form-action 'self'", `form-action 'self' ${target}`);
}

const SCOPE_TEXT = {
  read: 'Read your monitors, incidents, maintenance and uptime in the workspaces you choose.',
  write:
    'Read, and act as you: acknowledge and resolve incidents, post incident updates, start and complete maintenance (what your role allows).',
};

function consentView(
  req: PublicRequest,
  request: AuthorizationRequest,
  consent: Consent,
  errors: Record<string, string> = {},
  chosen?: { workspaceIds: string[]; primary: string | undefined },
) {
  const previous = consent.previous;
  const ticked = new Set(chosen?.workspaceIds ?? previous?.workspaceIds ?? consent.workspaces.map((w) => w.id));
  const primary = chosen?.primary ?? previous?.primaryWorkspaceId ?? consent.workspaces[0]?.id;
  const name = request.client.name || 'An unnamed app';
  return (
    <AuthLayout
      assets={req.assets}
      title="Connect an app"
      heading={`Allow ${name} to use Statusvane?`}
      lead={
        <>
          Signed in as {req.session!.user.email}. The app's name is <strong>unverified</strong>: it is what the app says
          about itself. Continue only if you started this from an app you trust.
        </>
      }
    >
      <dl class="consent">
        <dt>It receives the access at</dt>
        <dd>
          <code>{redirectHost(request.redirectUri)}</code>
        </dd>
        <dt>It asks to</dt>
        <dd>
          {SCOPE_TEXT[request.scope]} <span class="hint">(scope: {request.scope})</span>
        </dd>
        <dt>For</dt>
        <dd>
          <code>{resourceUrl(req.deps.config.publicBaseUrl, request.resource)}</code>
        </dd>
      </dl>
      <PostForm action={AUTHORIZE_PATH} csrf={req.csrf} label="Allow or deny the app">
        {AUTHORIZATION_PARAMS.map((k) => {
          const v = req.query[k] ?? req.form[k];
          return typeof v === 'string' ? <input type="hidden" name={k} value={v} /> : null;
        })}
        <fieldset class={errors.workspaces ? 'field has-error' : 'field'}>
          <legend>Workspaces it may use</legend>
          <div class="checks">
            {consent.workspaces.map((w) => (
              <label class="check">
                <input type="checkbox" name="workspace" value={w.id} checked={ticked.has(w.id)} />
                {w.name} <span class="hint">({w.slug})</span>
              </label>
            ))}
          </div>
          {errors.workspaces && <p class="field-error">{errors.workspaces}</p>}
        </fieldset>
        <fieldset class={errors.primary ? 'field has-error' : 'field'}>
          <legend>Primary workspace</legend>
          <p class="hint">Where it acts when it names none.</p>
          <div class="checks">
            {consent.workspaces.map((w) => (
              <label class="check">
                <input type="radio" name="primary" value={w.id} checked={w.id === primary} />
                {w.name}
              </label>
            ))}
          </div>
          {errors.primary && <p class="field-error">{errors.primary}</p>}
        </fieldset>
        <div class="form-actions">
          <Button name="decision" value="allow">
            Allow
          </Button>
          <Button name="decision" value="deny" variant="secondary">
            Deny
          </Button>
        </div>
      </PostForm>
    </AuthLayout>
  );
}

function errorPage(req: PublicRequest, message: string): PageAnswer {
  return {
    status: 400,
    view: (
      <MessagePage
        assets={req.assets}
        title="This app cannot connect"
        action={{ href: '/app', label: 'Go to the console' }}
      >
        {message}
      </MessagePage>
    ),
  };
}

/**
 * The authorization endpoint (beyond-the-seed §11): a console page at the service root. The request is checked
 * before anything else (a bad client or redirect URI is an error page, never a redirect); then the console's
 * sign-in; then consent, unless an earlier one covers the request.
 */
export function oauthPages(): PageDef[] {
  const handle = async (req: PublicRequest, params: Record<string, unknown>, post: boolean): Promise<PageAnswer> => {
    const check = await checkAuthorizationRequest(req.deps, { input: params });
    if (check.outcome === 'error_page') return errorPage(req, check.message);
    if (check.outcome === 'redirect_error') return refused(req, check.redirectUri, check.error, check.state);
    const { request } = check;
    if (!req.session || req.session.awaitingSecondFactor)
      return { redirect: post ? '/app/login' : `/app/login?next=${encodeURIComponent(req.url)}` };
    const ctx = sessionUserContext(req.session, req.now);
    if (post && req.form.decision === 'deny')
      return backToClient(req, request.redirectUri, {
        error: 'access_denied',
        error_description: 'The user denied access',
        state: request.state,
      });
    const consent = await getConsent(req.deps, { ctx, input: { clientId: request.client.id, scope: request.scope } });
    if (!post && !consent.covered)
      return {
        view: consentView(req, request, consent),
        headers: { 'Content-Security-Policy': consentCsp(request.redirectUri) },
      };
    const chosen = post ? { workspaceIds: req.formLists.workspace ?? [], primary: req.form.primary } : undefined;
    try {
      const { code } = await createAuthorizationCode(req.deps, {
        ctx,
        input: {
          request,
          ...(chosen ? { choice: { workspaceIds: chosen.workspaceIds, primaryWorkspaceId: chosen.primary } } : {}),
        },
      });
      return backToClient(req, request.redirectUri, { code, state: request.state });
    } catch (err) {
      if (!(err instanceof ValidationError) || !chosen) throw err;
      const issues = (err.details?.issues ?? []) as Array<{ path: string; message: string }>;
      const errors = Object.fromEntries(issues.map((i) => [i.path, i.message]));
      return {
        status: 400,
        view: consentView(req, request, consent, errors, chosen),
        headers: { 'Content-Security-Policy': consentCsp(request.redirectUri) },
      };
    }
  };
  return [
    definePage({ method: 'get', path: '/', access: 'public', handler: (req) => handle(req, req.query, false) }),
    definePage({ method: 'post', path: '/', access: 'public', handler: (req) => handle(req, req.form, true) }),
  ];
}
