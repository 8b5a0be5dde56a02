import request from 'supertest';
import type { PrismaClient } from '@statusvane/shared';
import { hashPassword } from '../../apps/api/src/services/status-pages/password.js';
import { makeUser, type Harness } from './harness.js';

/** The CSRF token a console page's forms carry. */
export function csrfOf(html: string): string {
  const m = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!m) throw new Error(`no CSRF field on the page: ${html.slice(0, 300)}`);
  return m[1]!;
}

/** Gives a user a console password directly (what the invitation link does), for tests of what comes after. */
export async function setUserPassword(prisma: PrismaClient, email: string, password: string): Promise<void> {
  await prisma.user.update({ where: { email }, data: { passwordHash: await hashPassword(password) } });
}

/**
 * A browser for the console: a cookie jar (supertest's agent), the deployment's Origin on every POST, and the CSRF
 * token read from the page the form is on.
 */
export function consoleBrowser(h: Harness, opts: { address?: string } = {}) {
  const agent = request.agent(h.app);
  const origin = new URL(h.config.publicBaseUrl).origin;
  const withAddress = <T extends request.Test>(t: T): T => (opts.address ? t.set('X-Forwarded-For', opts.address) : t);
  return {
    agent,
    origin,
    address: opts.address,
    get: (path: string) => withAddress(agent.get(path)),
    /** Opens `formPage`, then posts `fields` with its CSRF token to `action` (default: the same path). */
    async submit(formPage: string, fields: Record<string, string | string[]>, action = formPage) {
      const page = await withAddress(agent.get(formPage));
      return withAddress(agent.post(action))
        .set('Origin', origin)
        .type('form')
        .send({ _csrf: csrfOf(page.text), ...fields });
    },
    /** A POST with a token already in hand (or none). */
    post: (
      path: string,
      fields: Record<string, string | string[]>,
      headers: Record<string, string> = { Origin: origin },
    ) => withAddress(agent.post(path)).set(headers).type('form').send(fields),
    async signIn(email: string, password: string) {
      const res = await this.submit('/app/login', { email, password });
      if (res.status !== 303) throw new Error(`sign-in failed: ${res.status} ${res.text.slice(0, 300)}`);
      return res;
    },
  };
}

/** The console link (`/app/invite/...`, `/app/forgot/...`) in a raw mail, its quoted-printable soft breaks undone. */
export function linkInMail(raw: string, path: '/app/invite/' | '/app/forgot/'): string {
  const text = raw.replace(/=\r?\n/g, '').replace(/=3D/gi, '=');
  const m = new RegExp(`https?://[^\\s/]+(${path.replace(/\//g, '\\/')}[A-Za-z0-9_-]+)`).exec(text);
  if (!m) throw new Error(`no ${path} link in the mail:\n${text}`);
  return m[1]!;
}

/** The value of a cookie in a response's Set-Cookie headers. */
export function setCookie(res: { headers: Record<string, unknown> }, name: string): string | undefined {
  const all = (res.headers['set-cookie'] as string[] | undefined) ?? [];
  const line = all.find((c) => c.startsWith(`${name}=`));
  return line ? line.slice(name.length + 1).split(';')[0] : undefined;
}

/** The password the console suites give their users. */
export const TEST_PASSWORD = 'correct horse battery staple';

/** A new user with `role` in workspace `workspaceId` (and `name`), signed in to the console: browser and record. */
export async function signedInAs(
  h: Harness,
  workspaceId: string,
  role: 'owner' | 'admin' | 'member' | 'viewer',
  name?: string,
) {
  const user = await makeUser(h.prisma, [{ workspace: workspaceId, role }]);
  if (name) await h.prisma.user.update({ where: { id: user.id }, data: { name } });
  await setUserPassword(h.prisma, user.email, TEST_PASSWORD);
  const b = consoleBrowser(h);
  await b.signIn(user.email, TEST_PASSWORD);
  return { b, user };
}

/** The UTC date `days` from now (`YYYY-MM-DD`), for a form's date: an override still listed (only unended ones are). */
export const dayAhead = (days: number): string => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
