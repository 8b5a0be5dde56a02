import type { CookieOptions, Request, Response } from 'express';
import { readCookie } from '../services/status-pages/page-access.js';

/**
 * The console's two cookies: the session (`sv_session`) and the pre-session CSRF secret of the sign-in and forgot
 * forms (`sv_csrf`). On https they take the `__Host-` prefix: Secure, Path=/, no Domain, so no sibling host can set
 * or shadow them. HttpOnly and SameSite=Lax both.
 */
export interface ConsoleCookies {
  session: string;
  presession: string;
  secure: boolean;
}

export function consoleCookies(publicBaseUrl: string): ConsoleCookies {
  const secure = publicBaseUrl.startsWith('https:');
  const prefix = secure ? '__Host-' : '';
  return { session: `${prefix}sv_session`, presession: `${prefix}sv_csrf`, secure };
}

const options = (cookies: ConsoleCookies, expires?: Date): CookieOptions => ({
  httpOnly: true,
  sameSite: 'lax',
  secure: cookies.secure,
  path: '/',
  ...(expires ? { expires } : {}),
});

export const readSessionCookie = (req: Request, cookies: ConsoleCookies) =>
  readCookie(req.headers.cookie, cookies.session);
export const readPresessionCookie = (req: Request, cookies: ConsoleCookies) =>
  readCookie(req.headers.cookie, cookies.presession);

export function setSessionCookie(res: Response, cookies: ConsoleCookies, token: string, expires: Date): void {
  res.cookie(cookies.session, token, options(cookies, expires));
}

export function clearSessionCookie(res: Response, cookies: ConsoleCookies): void {
  res.clearCookie(cookies.session, options(cookies));
}

export function setPresessionCookie(res: Response, cookies: ConsoleCookies, value: string): void {
  res.cookie(cookies.presession, value, options(cookies));
}
