/**
 * Where a `next` parameter may send a browser after sign-in: a path of this site under /app/ or /oauth/authorize
 * (§7), nothing else: no other host, no scheme, no protocol-relative `//host`, no backslash tricks, no control
 * characters. Anything else gives `fallback`.
 */
export function safeNext(next: unknown, fallback = '/app'): string {
  if (typeof next !== 'string' || next.length === 0 || next.length > 2000) return fallback;
  if (/[\\\u0000-\u001f\u007f]/.test(next) || !next.startsWith('/') || next.startsWith('//')) return fallback;
  let url: URL;
  try {
    url = new URL(next, 'http://console.invalid');
  } catch {
    return fallback;
  }
  if (url.origin !== 'http://console.invalid') return fallback;
  const path = url.pathname;
  // Dot segments are resolved by URL: `/app/../api` is `/api`, refused.
  if (!(path.startsWith('/app/') || path === '/oauth/authorize')) return fallback;
  if (path.startsWith('/app/login') || path.startsWith('/app/logout')) return fallback;
  return `${path}${url.search}`;
}
