/**
 * One POST of a page or notice (requests.ts builds it). No database, no queue, no retries (retry.ts does those).
 *
 * - SSRF (`guard` given: a URL of the workspace's choosing): as in the http probe, names are checked by the guard's `lookup` on the exact addresses dialled (got
 *   `dnsLookup` and the agents' `lookup`), and IP-literal hosts, which never reach a lookup function, are checked
 *   in `beforeRequest` with `guard.resolveAndCheck`. Refusal: `ssrf_blocked`, not retried. `guard` null: a provider
 *   URL from the operator's configuration (PagerDuty, Opsgenie, Telegram), dialled as it is.
 * - Redirects are not followed: a 3xx is a failure (`http_3xx`), since following one would send the page (and
 *   its signature or a provider key) somewhere nobody configured.
 * - The response body is never read: the status line decides. Fresh agents per POST, keep-alive off.
 * - The URL is never put in an error or a log line (it is a credential for Slack, and holds a Telegram bot token);
 *   reasons are codes.
 */
import { once } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import got, { type Request as GotRequest, type Response } from 'got';
import { reasonForError } from '../net/reason-for-error.js';
import type { SsrfGuard } from '../ssrf/index.js';

export const USER_AGENT = 'Statusvane-Escalation/0.1';

export type AttemptResult =
  { ok: true; statusCode: number } | { ok: false; reason: string; retryable: boolean; statusCode?: number };

/** 5xx, 429 and 408 may pass; another 4xx or a 3xx will not change on a retry. */
export function retryableStatus(status: number): boolean {
  return status >= 500 || status === 429 || status === 408;
}

const NOT_RETRYABLE_ERRORS = new Set(['ssrf_blocked', 'invalid_request', 'too_many_redirects']);

export async function postOnce(
  guard: SsrfGuard | null,
  input: { url: string; body: string; headers: Record<string, string>; timeoutMs: number },
): Promise<AttemptResult> {
  let url: URL;
  try {
    url = new URL(input.url);
  } catch {
    return { ok: false, reason: 'invalid_target', retryable: false };
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username || url.password) {
    return { ok: false, reason: 'invalid_target', retryable: false };
  }
  const lookup = guard ? { lookup: guard.lookup } : {};
  const httpAgent = new http.Agent({ keepAlive: false, ...lookup });
  const httpsAgent = new https.Agent({ keepAlive: false, ...lookup });
  let request: GotRequest | undefined;
  try {
    request = got.stream.post(url, {
      body: input.body,
      headers: { 'user-agent': USER_AGENT, 'content-type': 'application/json; charset=utf-8', ...input.headers },
      followRedirect: false,
      throwHttpErrors: false,
      retry: { limit: 0 },
      timeout: { request: input.timeoutMs },
      ...(guard ? { dnsLookup: guard.lookup } : {}),
      http2: false,
      agent: { http: httpAgent, https: httpsAgent },
      hooks: {
        beforeRequest: [
          async (opts) => {
            const host = opts.url ? opts.url.hostname.replace(/^\[(.*)\]$/, '$1') : '';
            if (guard && net.isIP(host) !== 0) await guard.resolveAndCheck(host);
          },
        ],
      },
    });
    request.on('error', () => undefined);
    const [response] = (await once(request, 'response')) as [Response];
    const status = response.statusCode;
    if (status >= 200 && status < 300) return { ok: true, statusCode: status };
    return { ok: false, reason: `http_${status}`, retryable: retryableStatus(status), statusCode: status };
  } catch (err) {
    const reason = reasonForError(err);
    return { ok: false, reason, retryable: !NOT_RETRYABLE_ERRORS.has(reason) };
  } finally {
    if (request && !request.destroyed) request.destroy();
    httpAgent.destroy();
    httpsAgent.destroy();
  }
}
