/**
 * A path segment decoded as Express decodes a route parameter (router's decodeParam): left as it is without a `%`,
 * and a malformed escape is a 400 (`The request is malformed`) naming the segment. The routers that match paths
 * themselves (mountRoutes, the ping receiver) decode with it, so their answers are the ones Express's routes gave.
 */
export function decodeSegment(segment: string): string {
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch (err) {
    if (err instanceof URIError) Object.assign(err, { message: `Failed to decode param '${segment}'`, status: 400 });
    throw err;
  }
}
