/**
 * What an Express 5 app really mounts, read from its router stacks (the `router` package behind Express 5: every
 * router function carries `stack`, an array of layers; a layer has `rawPath` (what was passed to use/route), `route`
 * (a Route with `methods`) for endpoints, and `handle`, which is itself a router, with a `stack`, when a router was
 * mounted). Tests compare this with the OpenAPI document and with their own lists, so that a route mounted in code
 * but missing from the document (or from a fuzzer's list) fails a test instead of escaping it.
 */

export interface MountedRoute {
  /** Upper-case method as registered: `GET`, `POST` ..., `ALL` for `.all()`, `USE` for path-mounted middleware. */
  method: string;
  /** Full path in OpenAPI style: `/api/v1/monitors/{id}`. Anything that is not a plain string is `String(path)`. */
  path: string;
}

interface Layer {
  rawPath?: unknown;
  route?: { path: unknown; methods: Record<string, boolean> };
  handle?: { stack?: unknown } & ((...args: unknown[]) => unknown);
}

/** `/:id/x` -> `/{id}/x`; a RegExp or an unexpected shape is kept as text, so that it never matches a document path. */
function openApiPath(raw: unknown): string {
  if (typeof raw !== 'string') return `<${String(raw)}>`;
  return raw.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function join(prefix: string, path: string): string {
  if (path === '/' || path === '') return prefix || '/';
  return `${prefix}${path.startsWith('/') ? path : `/${path}`}`;
}

function walk(stack: readonly Layer[], prefix: string, out: MountedRoute[]): void {
  for (const layer of stack) {
    const raws = Array.isArray(layer.rawPath) ? (layer.rawPath as unknown[]) : [layer.rawPath ?? '/'];
    for (const raw of raws) {
      const path = join(prefix, openApiPath(raw));
      if (layer.route) {
        for (const [method, on] of Object.entries(layer.route.methods)) {
          if (on) out.push({ method: method === '_all' ? 'ALL' : method.toUpperCase(), path });
        }
      } else if (layer.handle && Array.isArray(layer.handle.stack)) {
        walk(layer.handle.stack as Layer[], path === '/' ? '' : path, out);
      } else if (raw !== '/' && raw !== undefined && layer.handle?.length !== 4) {
        // Middleware mounted at a path (a sub-app, a static server): it may answer requests of its own, so it is
        // listed. Not listed: middleware at the root of a router (auth, parsers ...), and error handlers (four
        // arguments), which only answer for the routes before them.
        out.push({ method: 'USE', path });
      }
    }
  }
}

/** Every (method, path) the app mounts, in registration order. */
export function mountedRoutes(app: { router: { stack: unknown } }): MountedRoute[] {
  const out: MountedRoute[] = [];
  walk(app.router.stack as Layer[], '', out);
  return out;
}

/** The router mounted at exactly `path` on the app's own stack (e.g. the authenticated `/api/v1` router). */
export function mountedRouter(
  app: { router: { stack: unknown } },
  path: string,
): { stack: unknown[] } & Record<string, unknown> {
  const layer = (app.router.stack as Layer[]).find(
    (l) => l.rawPath === path && l.handle && Array.isArray(l.handle.stack),
  );
  if (!layer) throw new Error(`no router mounted at ${path}`);
  return layer.handle as unknown as { stack: unknown[] } & Record<string, unknown>;
}
