import type { StatusPageBranding } from '@statusvane/shared';
import type { ComponentChildren } from 'preact';
import type { AssetUrls } from '../assets.js';
import { renderPage } from '../render.js';
import { Masthead, type MastheadPage } from './masthead.js';
import { PublicDocument, type PublicDocumentProps } from './public-document.js';
import { statusTitle } from './status-words.js';

/** The page's components as the subscribe form offers them, in the page's sections. */
export type ComponentChoice = Array<{ name: string | null; components: Array<{ id: string; name: string }> }>;

/** What a refused subscription comes back with: the typed values, and the reasons beside their fields. */
export interface SubscribeFormState {
  kind: 'email' | 'webhook';
  value: string;
  componentIds: string[];
  error?: string | undefined;
  componentsError?: string | undefined;
}

const KIND = {
  email: { id: 'sub-email', name: 'email', type: 'email', label: 'Email address', autocomplete: 'email', max: 320 },
  webhook: { id: 'sub-webhook', name: 'webhookUrl', type: 'url', label: 'Webhook URL', autocomplete: 'url', max: 2048 },
} as const;

/**
 * A subscribe form, by email or webhook: posted without JavaScript; a refused value comes back in it, with the reason
 * beside the field (tied to it for screen readers) and the typed value kept. With `choice`, the page's components as
 * checkboxes (none ticked: every component), the ticked ones kept.
 */
export function SubscribeForm(props: {
  basePath: string;
  kind?: 'email' | 'webhook';
  state?: SubscribeFormState | undefined;
  choice?: ComponentChoice;
}) {
  const k = KIND[props.kind ?? 'email'];
  const state = props.state?.kind === (props.kind ?? 'email') ? props.state : undefined;
  const error = state?.error;
  const ticked = new Set(state?.componentIds ?? []);
  const choice = props.choice?.filter((s) => s.components.length > 0) ?? [];
  const boxError = state?.componentsError;
  return (
    <form method="post" action={`${props.basePath}/subscribe`}>
      <label htmlFor={k.id}>{k.label}</label>
      <input
        id={k.id}
        name={k.name}
        // Preact types inputs per `type` literal; both kinds take the same attributes.
        type={k.type as 'email'}
        autocomplete={k.autocomplete}
        required
        maxLength={k.max}
        value={state?.value}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={error ? `${k.id}-error` : undefined}
      />
      {error && (
        <p id={`${k.id}-error`} class="field-error">
          {error}
        </p>
      )}
      {choice.length > 0 && (
        <fieldset class="choice" aria-describedby={boxError ? `${k.id}-components-error` : `${k.id}-components-hint`}>
          <legend>Components</legend>
          <p id={`${k.id}-components-hint`} class="muted">
            Leave every box empty to hear about all of them.
          </p>
          {boxError && (
            <p id={`${k.id}-components-error`} class="field-error">
              {boxError}
            </p>
          )}
          {choice.map((section) => (
            <div class="choice-group">
              {section.name !== null && <p class="choice-heading">{section.name}</p>}
              {section.components.map((c) => (
                <label class="check" htmlFor={`${k.id}-c-${c.id}`}>
                  <input
                    type="checkbox"
                    id={`${k.id}-c-${c.id}`}
                    name="componentIds"
                    value={c.id}
                    checked={ticked.has(c.id)}
                  />{' '}
                  {c.name}
                </label>
              ))}
            </div>
          ))}
        </fieldset>
      )}
      <button type="submit">{props.kind === 'webhook' ? 'Add webhook' : 'Subscribe'}</button>
    </form>
  );
}

/** One card in the middle of the page: the forms and messages around a status page (in its colours, where known). */
function Narrow(props: {
  title: string;
  heading: string;
  assets: AssetUrls;
  branding?: PublicDocumentProps['branding'];
  children: ComponentChildren;
}) {
  return (
    <PublicDocument title={props.title} assets={props.assets} branding={props.branding} noindex>
      <main class="narrow">
        <h1>{props.heading}</h1>
        <div class="card">{props.children}</div>
      </main>
    </PublicDocument>
  );
}

/**
 * The subscribe page (`<page>/subscribe`): by email or by webhook, each for every component or the ones ticked; after a
 * refused value (400), the same page with the reason beside its field and what was typed and ticked kept.
 */
export function renderSubscribePage(
  page: MastheadPage,
  assets: AssetUrls,
  choice: ComponentChoice,
  state?: SubscribeFormState,
): string {
  const base = page.basePath;
  return renderPage(
    <PublicDocument
      title={`Subscribe · ${statusTitle(page.name)}`}
      assets={assets}
      branding={{ basePath: base, brand: page.brand }}
      noindex
    >
      <Masthead page={page} home={false} />
      <main class="wrap subscribe-page">
        <h1>Get updates</h1>
        <p class="muted">Be told when an incident or maintenance is posted, updated or resolved.</p>
        <div class="subscribe-options">
          <section class="card" aria-labelledby="by-email">
            <h2 id="by-email">By email</h2>
            <p class="muted">We send a link to confirm first: nothing else until it is used.</p>
            <SubscribeForm basePath={base} kind="email" state={state} choice={choice} />
          </section>
          <section class="card" aria-labelledby="by-webhook">
            <h2 id="by-webhook">By webhook</h2>
            <p class="muted">A signed JSON POST to your URL for each event; its secret is shown once, next.</p>
            <SubscribeForm basePath={base} kind="webhook" state={state} choice={choice} />
          </section>
        </div>
        <p class="more">
          Or follow the <a href={`${base}/feed.atom`}>Atom</a> or <a href={`${base}/feed.rss`}>RSS</a> feed ·{' '}
          <a href={base || '/'}>Current status</a>
        </p>
      </main>
    </PublicDocument>,
  );
}

/** The password form of a protected page; `failed` adds the "wrong password" message. */
export function renderPasswordForm(
  page: { name: string; brand: StatusPageBranding },
  failed: boolean,
  basePath: string,
  assets: AssetUrls,
): string {
  return renderPage(
    <Narrow
      title={statusTitle(page.name)}
      heading={page.name}
      assets={assets}
      branding={{ basePath, brand: page.brand }}
    >
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
