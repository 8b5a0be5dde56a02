import { z } from 'zod';

/**
 * Fields of an HTTP request that http monitors and api steps share: the target URL's format and the custom headers.
 * A leaf module (monitor.ts and api-steps.ts both import it).
 */

/** The limits of these fields (MONITOR_LIMITS shows them too). */
export const REQUEST_LIMITS = { targetMax: 2048, headersMax: 50, headerValueMax: 8192 } as const;
const { targetMax: TARGET_MAX, headersMax: HEADERS_MAX, headerValueMax: HEADER_VALUE_MAX } = REQUEST_LIMITS;

/** Why `value` is not an absolute http(s) URL without credentials (none: it is one). */
export function httpUrlProblems(value: string): string[] {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return ['must be an absolute http or https URL'];
  }
  const out: string[] = [];
  if (url.protocol !== 'http:' && url.protocol !== 'https:') out.push('only http and https URLs can be monitored');
  if (url.username || url.password) out.push('credentials in the URL are not allowed: send them in headers');
  if (!url.hostname) out.push('the URL has no host');
  return out;
}

/** An absolute http(s) URL without credentials. The SSRF guard runs on it afterwards, in the service. */
export const httpTargetSchema = z
  .string()
  .max(TARGET_MAX)
  .superRefine((value, ctx) => {
    for (const message of httpUrlProblems(value)) ctx.addIssue({ code: 'custom', message });
  });

// RFC 9110 token characters for header names; values may not carry CR, LF or NUL (header injection). A `__proto__`
// name (in headers or metadata) never reaches a refinement: Zod drops it while copying, so the monitor service
// refuses it on the raw input.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
const FORBIDDEN_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'upgrade',
  'te',
  'trailer',
  'keep-alive',
  'proxy-connection',
]);
export const headersSchema = z
  .record(
    z.string(),
    z
      .string()
      .max(HEADER_VALUE_MAX)
      .regex(/^[^\r\n\0]*$/, 'header values may not contain CR, LF or NUL'),
  )
  .superRefine((headers, ctx) => {
    const names = Object.keys(headers);
    if (names.length > HEADERS_MAX) ctx.addIssue({ code: 'custom', message: `at most ${HEADERS_MAX} headers` });
    const seen = new Set<string>();
    for (const n of names) {
      const lower = n.toLowerCase();
      if (!HEADER_NAME.test(n)) ctx.addIssue({ code: 'custom', path: [n], message: 'not a valid header name' });
      else if (FORBIDDEN_HEADERS.has(lower))
        ctx.addIssue({
          code: 'custom',
          path: [n],
          message: 'this header is set by the probe and cannot be overridden',
        });
      if (seen.has(lower))
        ctx.addIssue({ code: 'custom', path: [n], message: 'duplicate header name (names are case-insensitive)' });
      seen.add(lower);
    }
  });

/** Expected response statuses: empty means any 2xx or 3xx. */
export const statusCodesSchema = z.array(z.number().int().min(100).max(599)).max(100);
