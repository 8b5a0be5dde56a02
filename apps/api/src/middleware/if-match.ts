import { AppError } from '@statusvane/shared';
import type { IfMatch } from '../services/audit/record-write.js';

/** One entity tag of a list: `"12"`, `W/"12"`, `"x"`. */
const ENTITY_TAG = /^(W\/)?"([\x21\x23-\x7e]*)"$/;

/**
 * `If-Match` (RFC 9110 13.1.1) as the services check it: absent -> no condition; `*` -> the record must exist; a
 * list of entity tags -> the versions of its strong, numeric ones (strong comparison: a weak tag never matches, so
 * `W/"3"` alone answers 412). A value that is not a list of entity tags is 400, naming the header.
 */
export function parseIfMatch(header: string | undefined): IfMatch | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (value === '*') return '*';
  const versions: number[] = [];
  for (const part of value.split(',')) {
    const m = ENTITY_TAG.exec(part.trim());
    if (!m) {
      throw new AppError('invalid_request', 'If-Match must be * or a list of entity tags such as "3" (the ETag)', {
        issues: [{ path: 'If-Match', message: 'is not * or a list of quoted entity tags' }],
      });
    }
    if (!m[1] && /^[0-9]{1,9}$/.test(m[2]!)) versions.push(Number(m[2]));
  }
  return versions;
}

/** `ETag: "<version>"` of an answer that is one record with a version (not a list, not a 204). */
export function etagOf(data: unknown): string | undefined {
  const version = (data as { version?: unknown } | null)?.version;
  return typeof version === 'number' && Number.isInteger(version) ? `"${version}"` : undefined;
}

/**
 * Whether `If-None-Match` (RFC 9110 13.1.2) names `etag`: `*`, or a list holding it by weak comparison (`W/"3"` names
 * `"3"`). A GET answered with that ETag is then 304. Judged whatever the request's `Cache-Control` says: Express's
 * `req.fresh` treats `no-cache` as stale, and fetch (Node's and browsers') sends `no-cache` with its revalidations,
 * so with it a matching tag was answered 200 in full.
 */
export function ifNoneMatchNames(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => opaque(tag) === opaque(etag));
}
