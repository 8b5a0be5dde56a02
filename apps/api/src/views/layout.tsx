import type { ComponentChildren } from 'preact';
import type { AssetUrls } from './assets.js';
import { Button } from './components/button.js';
import { Flash, type FlashKind } from './components/flash.js';
import { PostForm } from './components/form.js';
import { Nav, type NavItem } from './components/nav.js';
import { Document } from './document.js';

/** What every signed-in page's frame needs: who is signed in, where, and the token its forms carry. */
export interface Chrome {
  assets: AssetUrls;
  csrf: string;
  user: { email: string; name: string | null };
  /** The workspace the page is in (absent on account pages and the chooser). */
  workspace?: { name: string; base: string } | undefined;
  /** The workspace's sections (empty outside a workspace). */
  nav: readonly NavItem[];
  /** Whether the user has more than one workspace: the name then links to the chooser. */
  manyWorkspaces: boolean;
}

export interface FlashMessage {
  kind: FlashKind;
  text: string;
}

/** A signed-in page: the top bar (workspace, sections, account, sign out), then the page's own content. */
export function ConsoleLayout(props: {
  chrome: Chrome;
  title: string;
  section?: string;
  flash?: FlashMessage | null | undefined;
  children: ComponentChildren;
}) {
  const { chrome } = props;
  return (
    <Document title={props.title} assets={chrome.assets}>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <div class="topbar-inner">
          <a class="brand" href="/app">
            <span class="brand-mark" aria-hidden="true" />
            Statusvane
          </a>
          {chrome.workspace &&
            (chrome.manyWorkspaces ? (
              <a class="workspace-name" href="/app" title="Switch workspace">
                {chrome.workspace.name}
              </a>
            ) : (
              <span class="workspace-name">{chrome.workspace.name}</span>
            ))}
          {chrome.nav.length > 0 && <Nav items={chrome.nav} current={props.section} />}
          <div class="account">
            <a href="/app/account" aria-current={props.section === 'account' ? 'page' : undefined}>
              {chrome.user.name || chrome.user.email}
            </a>
            <PostForm action="/app/logout" csrf={chrome.csrf}>
              <Button variant="secondary" small>
                Sign out
              </Button>
            </PostForm>
          </div>
        </div>
      </header>
      <main id="main" class="main" tabIndex={-1}>
        {props.flash && <Flash kind={props.flash.kind}>{props.flash.text}</Flash>}
        {props.children}
      </main>
    </Document>
  );
}

/** The sign-in pages (sign in, code, forgot, set password): one card in the middle of the page. */
export function AuthLayout(props: {
  assets: AssetUrls;
  title: string;
  heading: string;
  lead?: ComponentChildren;
  flash?: FlashMessage | null | undefined;
  children: ComponentChildren;
  foot?: ComponentChildren;
}) {
  return (
    <Document title={props.title} assets={props.assets} bodyClass="auth">
      <header class="auth-brand">
        <a class="brand" href="/app/login">
          <span class="brand-mark" aria-hidden="true" />
          Statusvane
        </a>
      </header>
      <main id="main" class="auth-card">
        <h1>{props.heading}</h1>
        {props.lead && <p class="lead">{props.lead}</p>}
        {props.flash && <Flash kind={props.flash.kind}>{props.flash.text}</Flash>}
        {props.children}
      </main>
      {props.foot && <footer class="auth-foot">{props.foot}</footer>}
    </Document>
  );
}

/** A page that only says what went wrong (403, 404, an expired link ...), with a way on. */
export function MessagePage(props: {
  assets: AssetUrls;
  title: string;
  children: ComponentChildren;
  action?: { href: string; label: string };
}) {
  return (
    <AuthLayout assets={props.assets} title={props.title} heading={props.title}>
      <p>{props.children}</p>
      {props.action && (
        <p>
          <a href={props.action.href}>{props.action.label}</a>
        </p>
      )}
    </AuthLayout>
  );
}
