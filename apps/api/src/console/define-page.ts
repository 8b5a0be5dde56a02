import type { Request, RequestHandler, Response, Router } from 'express';
import type { VNode } from 'preact';
import { randomSecret } from '@statusvane/shared';
import type { ApiDeps } from '../deps.js';
import { ROUTE_LABEL } from '../middleware/request-log.js';
import { renderedAnswer, sendRendered, type RenderedAnswer } from '../middleware/rendered-answer.js';
import { can, type Permission } from '../services/auth/permissions.js';
import { sessionWorkspaceContext } from '../services/auth/session-context.js';
import type { ServiceContext } from '../services/context.js';
import { readSession, type ConsoleSession } from '../services/users/sessions.js';
import type { AssetUrls } from '../views/assets.js';
import type { Chrome } from '../views/layout.js';
import { renderPage } from '../views/render.js';
import {
  clearSessionCookie,
  readPresessionCookie,
  readSessionCookie,
  setPresessionCookie,
  setSessionCookie,
  type ConsoleCookies,
} from './console-cookies.js';
import { csrfTokenFor } from './csrf.js';
import { workspaceBase, workspaceNav } from './workspace-paths.js';
import { servable, type ConsolePageCache } from './page-cache.js';
import { forbiddenPage, notFoundPage } from './pages/error-pages.js';

/**
 * Who may open a page: anyone (`public`: sign-in, forgot, links from mails), a sign-in waiting for its second factor
 * (`pending`), a signed-in user (`user`: account, workspace chooser), or a member of the workspace in the path
 * (`workspace`: `/app/<slug>/...` and `/app/w/<slug>/...`, with the member's live role).
 */
export type PageAccess = 'public' | 'pending' | 'user' | 'workspace';

interface BaseRequest {
  deps: ApiDeps;
  assets: AssetUrls;
  /** The CSRF token the page's forms carry (PostForm). */
  csrf: string;
  params: Record<string, string>;
  /** The query as Express's simple parser gives it (strings, or arrays for repeated names). */
  query: Record<string, unknown>;
  /** A POST's urlencoded fields; a name given twice is left out (only formLists has it). */
  form: Record<string, string>;
  /** A POST's fields that a form may send several times (checkboxes of one name), every value. */
  formLists: Record<string, string[]>;
  /** The client address (TRUST_PROXY decides whose X-Forwarded-For is believed). */
  address: string;
  userAgent: string | undefined;
  /** The request's one clock reading. */
  now: Date;
  /** The path and query asked for: where to come back to after signing in. */
  url: string;
}

export interface PublicRequest extends BaseRequest {
  session: ConsoleSession | null;
}
export interface PendingRequest extends BaseRequest {
  session: ConsoleSession;
}
export interface UserRequest extends BaseRequest {
  session: ConsoleSession;
  chrome: Chrome;
}
export interface WorkspaceRequest extends UserRequest {
  /** The signed-in member's ServiceContext: every service verb the page calls gets it. */
  ctx: ServiceContext;
  /** The workspace's console root, `/app/<slug>` (or `/app/w/<slug>`). */
  base: string;
  /**
   * The member's context as of now (session and role read again), or null once the session ended or the membership
   * went: what a long answer (a stream) checks as it goes.
   */
  recheck: () => Promise<ServiceContext | null>;
}

type RequestOf<A extends PageAccess> = A extends 'public'
  ? PublicRequest
  : A extends 'pending'
    ? PendingRequest
    : A extends 'user'
      ? UserRequest
      : WorkspaceRequest;

/** A new session cookie to set, or 'clear' to drop the one the browser has. */
export type SessionChange = { token: string; expires: Date } | 'clear';

/**
 * A long answer written as it goes (server-sent events): `run` writes until it returns or `signal` aborts (the client
 * went away).
 */
export interface PageStream {
  contentType: string;
  run: (write: (chunk: string) => void, signal: AbortSignal) => Promise<void>;
}

/**
 * What a page answers: a rendered page (status 200 unless said), a 303 redirect (after every successful POST), or a
 * stream.
 */
export type PageAnswer =
  | { view: VNode; status?: number; session?: SessionChange; noReferrer?: boolean; headers?: Record<string, string> }
  | { redirect: string; session?: SessionChange }
  | { stream: PageStream };

export interface PageDef<A extends PageAccess = PageAccess> {
  method: 'get' | 'post';
  /** Relative to /app, or for `workspace` pages to the workspace's root (`/monitors`). */
  path: string;
  access: A;
  /** `workspace` POSTs: the permission the write needs, checked before the handler (a forged write is 403). */
  permission?: A extends 'workspace' ? Permission : never;
  /**
   * `workspace` GETs that only read: the page's render may answer the same session's next request for the same
   * address, up to CONSOLE_PAGE_MAX_AGE_MS later, while the workspace's event log has nothing after the page's cursor
   * and the member, role and workspace are the same (ADR 0023, console/page-cache.ts). Only a 200 that sets no cookie
   * and no header of its own is kept.
   */
  kept?: A extends 'workspace' ? boolean : never;
  handler: (req: RequestOf<A>) => Promise<PageAnswer>;
}

/** One console page: typed by its access, so a handler gets exactly the request its access guarantees. */
export function definePage<A extends PageAccess>(def: PageDef<A>): PageDef<A> {
  return def;
}

/** What mountPages needs besides the pages. */
export interface PageMountOptions {
  /**
   * The template of where the router is mounted (`/app`, `/app/{ws}`, `/app/w/{ws}`): request logs and metrics label
   * a page by it and the page's path, never by the path asked (which names a workspace, or carries a link's token).
   */
  mount: string;
  deps: ApiDeps;
  cookies: ConsoleCookies;
  assets: () => Promise<AssetUrls>;
  clock: () => Date;
  /** Where pages declared `kept` are kept (one per console router; none: every page is rendered for its request). */
  pageCache?: ConsolePageCache;
}

function formListsOf(req: Request): Record<string, string[]> {
  const body: unknown = req.body;
  if (!body || typeof body !== 'object') return {};
  const out: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) {
    const list = Array.isArray(v) ? v : [v];
    if (list.every((x) => typeof x === 'string')) out[k] = list as string[];
  }
  return out;
}

function formOf(req: Request): Record<string, string> {
  const body: unknown = req.body;
  if (!body || typeof body !== 'object') return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(body as Record<string, unknown>)) if (typeof v === 'string') out[k] = v;
  return out;
}

/** Sends a page's answer; a rendered page is returned, to be kept (ADR 0023). */
async function send(res: Response, cookies: ConsoleCookies, answer: PageAnswer): Promise<RenderedAnswer | undefined> {
  if ('stream' in answer) {
    res.status(200).type(answer.stream.contentType);
    // Nothing between the page and the browser may hold the events back (nginx buffers unless told).
    res.setHeader('X-Accel-Buffering', 'no');
    res.flushHeaders();
    const left = new AbortController();
    res.on('close', () => left.abort());
    await answer.stream.run((chunk) => void res.write(chunk), left.signal);
    res.end();
    return undefined;
  }
  if (answer.session === 'clear') clearSessionCookie(res, cookies);
  else if (answer.session) setSessionCookie(res, cookies, answer.session.token, answer.session.expires);
  if ('redirect' in answer) {
    res.redirect(303, answer.redirect);
    return undefined;
  }
  if (answer.noReferrer) res.setHeader('Referrer-Policy', 'no-referrer');
  for (const [name, value] of Object.entries(answer.headers ?? {})) res.setHeader(name, value);
  const rendered = renderedAnswer(renderPage(answer.view), 'once');
  res.status(answer.status ?? 200).type('html');
  // Encoded for a browser that takes it, as the public page is: a page of 100 monitors is 220 KB of HTML and 23 KB
  // gzipped (`once`: most console pages are made for one request).
  await sendRendered(res.req, res, rendered);
  return rendered;
}

/** A page's answer that may be kept: a plain 200, no cookie, no header of its own. */
const keepable = (answer: PageAnswer): boolean =>
  'view' in answer && (answer.status ?? 200) === 200 && !answer.session && !answer.headers && !answer.noReferrer;

/**
 * Mounts page entries on a router: loads the session (only here: the console is the one reader of the cookie),
 * enforces each page's access, builds the workspace member's ServiceContext with their live role, and renders or
 * redirects what the handler answers. Errors go to the console's error pages (console.router.ts).
 */
export function mountPages(router: Router, pages: readonly PageDef[], opts: PageMountOptions): void {
  const { deps, cookies } = opts;
  for (const page of pages) {
    const label = `${opts.mount}${page.path === '/' ? '' : page.path.replace(/:([A-Za-z]+)/g, '{$1}')}` || '/';
    const handler: RequestHandler = async (req, res) => {
      res.locals[ROUTE_LABEL] = label;
      const now = opts.clock();
      const assets = await opts.assets();
      const sessionToken = readSessionCookie(req, cookies);
      // A workspace page's session is read with the user's membership in the workspace its path names.
      const slug = page.access === 'workspace' ? String(req.params.ws ?? '') : null;
      // A page declared `kept` (ADR 0023): the render kept for this session at this address, if any. The session's
      // read asks the workspace's event log whether anything came after it.
      const keptKey = page.kept && opts.pageCache && sessionToken ? `${req.originalUrl}\n${sessionToken}` : undefined;
      const kept = keptKey === undefined ? undefined : opts.pageCache?.peek(keptKey);
      const session = await readSession(deps.prisma, deps.logger, sessionToken, now, {
        slug,
        loggedSince: kept?.logEnd ?? null,
      });
      const ctx =
        slug !== null && session && !session.awaitingSecondFactor ? sessionWorkspaceContext(session, now) : null;
      // Everything a kept page shows that is not the workspace's log: who asks, as what, in which workspace.
      const who =
        keptKey === undefined || !session || !ctx
          ? undefined
          : [
              ctx.role,
              ctx.workspace.id,
              ctx.workspace.slug,
              ctx.workspace.name,
              session.user.email,
              session.user.name ?? '',
              session.workspaceCount > 1,
            ].join('\n');
      if (kept && keptKey !== undefined) {
        if (who !== undefined && servable(kept, who, session?.membership?.loggedSince ?? null, now)) {
          res.status(200).type('html');
          await sendRendered(req, res, kept.answer);
          return;
        }
        opts.pageCache?.drop(keptKey);
      }
      // Forms of a session carry its token; before sign-in, the pre-session cookie's (created on first need).
      let csrfSecret = session ? sessionToken : readPresessionCookie(req, cookies);
      if (!csrfSecret || !/^[A-Za-z0-9_-]{43}$/.test(csrfSecret)) {
        csrfSecret = randomSecret(32);
        setPresessionCookie(res, cookies, csrfSecret);
      }
      const base: BaseRequest = {
        deps,
        assets,
        csrf: csrfTokenFor(csrfSecret),
        params: Object.fromEntries(Object.entries(req.params).map(([k, v]) => [k, String(v)])),
        query: req.query as Record<string, unknown>,
        form: formOf(req),
        formLists: formListsOf(req),
        address: req.ip ?? 'unknown',
        userAgent: req.get('user-agent'),
        now,
        url: req.originalUrl,
      };
      const toSignIn = (): PageAnswer => ({
        redirect: req.method === 'GET' ? `/app/login?next=${encodeURIComponent(req.originalUrl)}` : '/app/login',
        // A cookie that names no live session is dropped.
        ...(sessionToken && !session ? { session: 'clear' as const } : {}),
      });
      let answer: PageAnswer;
      if (page.access === 'public') {
        answer = await (page as PageDef<'public'>).handler({ ...base, session });
      } else if (page.access === 'pending') {
        answer = session?.awaitingSecondFactor
          ? await (page as PageDef<'pending'>).handler({ ...base, session })
          : { redirect: '/app/login', ...(sessionToken && !session ? { session: 'clear' as const } : {}) };
      } else if (!session || session.awaitingSecondFactor) {
        answer = toSignIn();
      } else {
        const chrome: Chrome = {
          assets,
          csrf: base.csrf,
          user: session.user,
          nav: [],
          manyWorkspaces: session.workspaceCount > 1,
        };
        if (slug === null) {
          answer = await (page as PageDef<'user'>).handler({ ...base, session, chrome });
        } else {
          if (!ctx) {
            answer = notFoundPage(assets, 'You are not a member of a workspace at this address.');
          } else if (page.permission && !can(ctx.role, page.permission)) {
            answer = forbiddenPage(assets, `Your role (${ctx.role}) in ${ctx.workspace.name} may not do this.`);
          } else {
            const wsBase = workspaceBase(ctx.workspace.slug);
            const recheck = async () => {
              const at = opts.clock();
              const live = await readSession(deps.prisma, deps.logger, sessionToken, at, { slug });
              return live && !live.awaitingSecondFactor ? sessionWorkspaceContext(live, at) : null;
            };
            answer = await (page as PageDef<'workspace'>).handler({
              ...base,
              session,
              ctx,
              base: wsBase,
              recheck,
              chrome: { ...chrome, workspace: { name: ctx.workspace.name, base: wsBase }, nav: workspaceNav(wsBase) },
            });
          }
        }
      }
      const rendered = await send(res, cookies, answer);
      if (keptKey !== undefined && session && who !== undefined && rendered && keepable(answer))
        opts.pageCache?.keep(keptKey, { who, logEnd: session.logEnd, at: now.getTime(), answer: rendered });
    };
    router[page.method](page.path, handler);
  }
}
