import type { ComponentChildren } from 'preact';
import type { AssetUrls } from '../assets.js';
import { renderPage } from '../render.js';
import { PublicDocument } from './public-document.js';
import { statusTitle } from './status-words.js';

/**
 * The subscribe form: posted without JavaScript; a refused address comes back in it, with the reason beside the
 * field (tied to it for screen readers) and the typed value kept.
 */
export function SubscribeForm(props: { basePath: string; email?: string; error?: string | undefined }) {
  return (
    <form method="post" action={`${props.basePath}/subscribe`}>
      <label htmlFor="sub-email">Email address</label>
      <input
        id="sub-email"
        name="email"
        type="email"
        autocomplete="email"
        required
        maxLength={320}
        value={props.email}
        aria-invalid={props.error ? 'true' : undefined}
        aria-describedby={props.error ? 'sub-email-error' : undefined}
      />
      {props.error && (
        <p id="sub-email-error" class="field-error">
          {props.error}
        </p>
      )}
      <button type="submit">Subscribe</button>
    </form>
  );
}

/** One card in the middle of the page: the forms and messages around a status page. */
function Narrow(props: { title: string; heading: string; assets: AssetUrls; children: ComponentChildren }) {
  return (
    <PublicDocument title={props.title} assets={props.assets} noindex>
      <main class="narrow">
        <h1>{props.heading}</h1>
        <div class="card">{props.children}</div>
      </main>
    </PublicDocument>
  );
}

/** The subscribe page: the form again after a refused address (400), the reason beside the field. */
export function renderSubscribeForm(
  page: { name: string },
  basePath: string,
  assets: AssetUrls,
  form: { email: string; error: string },
): string {
  return renderPage(
    <Narrow title={`Subscribe · ${statusTitle(page.name)}`} heading={`Subscribe to ${page.name}`} assets={assets}>
      <p>Get an email when an incident or maintenance is posted.</p>
      <SubscribeForm basePath={basePath} email={form.email} error={form.error} />
      <p>
        <a href={basePath || '/'}>Back to the status page</a>
      </p>
    </Narrow>,
  );
}

/** The password form of a protected page; `failed` adds the "wrong password" message. */
export function renderPasswordForm(
  page: { name: string },
  failed: boolean,
  basePath: string,
  assets: AssetUrls,
): string {
  return renderPage(
    <Narrow title={statusTitle(page.name)} heading={page.name} assets={assets}>
      <p>This status page is private. Enter its password to view it.</p>
      {failed && (
        <p class="error" role="alert">
          That password is not right. Try again.
        </p>
      )}
      <form method="post" action={`${basePath}/login`}>
        <label htmlFor="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="current-password"
          required
          maxLength={200}
          autofocus
        />
        <button type="submit">View status</button>
      </form>
    </Narrow>,
  );
}

/** After POST /subscribe from the form: the same words whatever was known; a webhook's secret shown once. */
export function renderSubscribed(
  page: { name: string },
  basePath: string,
  assets: AssetUrls,
  webhookSecret: string | null,
): string {
  return renderPage(
    <Narrow title={statusTitle(page.name)} heading="Almost there" assets={assets}>
      {webhookSecret ? (
        <>
          <p>The webhook is subscribed. Deliveries are signed with this secret; it is shown only now:</p>
          <p>
            <code class="body">{webhookSecret}</code>
          </p>
        </>
      ) : (
        <p>If this address can receive mail, a confirmation link is on its way. Nothing is sent until it is used.</p>
      )}
      <p>
        <a href={basePath || '/'}>Back to the status page</a>
      </p>
    </Narrow>,
  );
}

/** The page behind a mail link: a button to confirm or unsubscribe (GET), or the result (after the POST). */
export function renderLinkAction(
  page: { name: string },
  action: string,
  kind: 'confirm' | 'unsubscribe',
  done: boolean,
  assets: AssetUrls,
): string {
  const title = kind === 'confirm' ? 'Confirm your subscription' : 'Unsubscribe';
  const heading = done ? (kind === 'confirm' ? 'Subscribed' : 'Unsubscribed') : title;
  return renderPage(
    <Narrow title={title} heading={heading} assets={assets}>
      {done ? (
        <p>
          {kind === 'confirm'
            ? `You will be told of incidents and maintenance of ${page.name}.`
            : `You will not hear from ${statusTitle(page.name)} again.`}
        </p>
      ) : (
        <>
          <p>
            {kind === 'confirm'
              ? `Get incident and maintenance updates of ${page.name} by email.`
              : `Stop updates of ${page.name} to this address.`}
          </p>
          <form method="post" action={action}>
            <button type="submit">{kind === 'confirm' ? 'Confirm' : 'Unsubscribe'}</button>
          </form>
        </>
      )}
    </Narrow>,
  );
}

/** A plain page for 404 and for errors, with the same look and policy. */
export function renderMessage(title: string, message: string, assets: AssetUrls): string {
  return renderPage(
    <Narrow title={title} heading={title} assets={assets}>
      <p>{message}</p>
    </Narrow>,
  );
}
