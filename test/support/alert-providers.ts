/**
 * A local fake of the alert providers, on 127.0.0.1 only: it checks each request the way the provider documents it
 * and answers as the provider does, or 400 with the problems it found (which the sender records as `http_400`).
 *
 *   POST /pd/v2/enqueue                           PagerDuty Events API v2 (PAGERDUTY_EVENTS_URL)      202
 *   POST /og/v2/alerts                            Opsgenie create alert (OPSGENIE_API_URL = /og)      202
 *   POST /og/v2/alerts/<alias>/acknowledge|close  with ?identifierType=alias                          202
 *   POST /tg/bot<token>/sendMessage               Telegram Bot API (TELEGRAM_API_URL = /tg)           200
 *   POST /teams/<any>                             Teams webhook: an Adaptive Card message             202
 *   POST /discord/<any>                           Discord Execute Webhook                             204
 *   POST /ntfy/<topic>                            ntfy publish (plain body, Title/Priority/Tags)       200
 *
 * `failNext(prefix, ...statuses)` answers the next requests under a path prefix with those statuses first (retry
 * tests); `hold(prefix)` keeps requests under a prefix waiting until `release()` (a page in flight).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProviderRequest {
  method: string;
  /** Path with query string, as received. */
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The body as JSON, or null when it is not JSON (ntfy). */
  json: Record<string, unknown> | null;
  /** What the fake found wrong with it (empty: a valid request, answered as the provider does). */
  problems: string[];
  status: number;
}

type Json = Record<string, unknown>;
const isString = (v: unknown, min = 1, max = Infinity): v is string =>
  typeof v === 'string' && v.length >= min && v.length <= max;
const isStringMap = (v: unknown) =>
  typeof v === 'object' && v !== null && Object.values(v).every((x) => typeof x === 'string');

/** RFC 2047 `=?UTF-8?B?...?=` (what ntfy decodes in headers), or the value as it is. */
export function decodeHeaderWord(value: string | undefined): string | undefined {
  const m = value?.match(/^=\?UTF-8\?B\?([A-Za-z0-9+/=]*)\?=$/i);
  return m ? Buffer.from(m[1]!, 'base64').toString('utf8') : value;
}

/** PagerDuty Events API v2: developer.pagerduty.com/docs/events-API-v2/trigger-events/ (and acknowledge, resolve). */
function pagerdutyProblems(body: Json | null): string[] {
  if (!body) return ['body is not JSON'];
  const p: string[] = [];
  if (!isString(body.routing_key) || !/^[A-Za-z0-9]{32}$/.test(body.routing_key)) p.push('routing_key');
  if (!['trigger', 'acknowledge', 'resolve'].includes(body.event_action as string)) p.push('event_action');
  if (!isString(body.dedup_key, 1, 255)) p.push('dedup_key');
  if (body.event_action === 'trigger') {
    const payload = (body.payload ?? {}) as Json;
    if (!isString(payload.summary, 1, 1024)) p.push('payload.summary');
    if (!isString(payload.source)) p.push('payload.source');
    if (!['critical', 'error', 'warning', 'info'].includes(payload.severity as string)) p.push('payload.severity');
    if (payload.timestamp !== undefined && Number.isNaN(Date.parse(payload.timestamp as string)))
      p.push('payload.timestamp');
  } else if (body.payload !== undefined) p.push('payload (trigger only)');
  return p;
}

/** Opsgenie Alert API: docs.opsgenie.com/docs/alert-api. */
function opsgenieProblems(path: string, headers: http.IncomingHttpHeaders, body: Json | null): string[] {
  const p: string[] = [];
  if (!/^GenieKey [A-Za-z0-9-]+$/.test(headers.authorization ?? '')) p.push('authorization');
  if (!body) return [...p, 'body is not JSON'];
  const url = new URL(path, 'http://x');
  if (url.pathname === '/og/v2/alerts') {
    if (!isString(body.message, 1, 130)) p.push('message');
    if (body.alias !== undefined && !isString(body.alias, 1, 512)) p.push('alias');
    if (body.description !== undefined && !isString(body.description, 0, 15_000)) p.push('description');
    if (body.priority !== undefined && !/^P[1-5]$/.test(body.priority as string)) p.push('priority');
    if (body.details !== undefined && !isStringMap(body.details)) p.push('details');
    if (body.tags !== undefined && !(Array.isArray(body.tags) && body.tags.every((t) => isString(t, 1, 50))))
      p.push('tags');
  } else if (/^\/og\/v2\/alerts\/[^/]+\/(acknowledge|close)$/.test(url.pathname)) {
    if (url.searchParams.get('identifierType') !== 'alias') p.push('identifierType');
    if (body.note !== undefined && !isString(body.note, 0, 25_000)) p.push('note');
    if (body.source !== undefined && !isString(body.source, 0, 100)) p.push('source');
  } else p.push('path');
  return p;
}

/** Telegram Bot API sendMessage: core.telegram.org/bots/api#sendmessage. */
function telegramProblems(path: string, body: Json | null): string[] {
  if (!/^\/tg\/bot\d+:[A-Za-z0-9_-]+\/sendMessage$/.test(path)) return ['path'];
  if (!body) return ['body is not JSON'];
  const p: string[] = [];
  if (!(isString(body.chat_id) || Number.isInteger(body.chat_id))) p.push('chat_id');
  if (!isString(body.text, 1, 4096)) p.push('text');
  if (body.parse_mode !== undefined) p.push('parse_mode (plain text expected)');
  return p;
}

/** Teams: an Adaptive Card in a message attachment (the incoming-webhook and Workflows format). */
function teamsProblems(body: Json | null): string[] {
  if (!body) return ['body is not JSON'];
  const attachment = (Array.isArray(body.attachments) ? body.attachments[0] : undefined) as Json | undefined;
  const card = (attachment?.content ?? {}) as Json;
  const p: string[] = [];
  if (body.type !== 'message') p.push('type');
  if (attachment?.contentType !== 'application/vnd.microsoft.card.adaptive') p.push('attachments[0].contentType');
  if (card.type !== 'AdaptiveCard' || !isString(card.version)) p.push('card');
  const blocks = Array.isArray(card.body) ? (card.body as Json[]) : [];
  if (!blocks.length || !blocks.every((b) => b.type === 'TextBlock' && isString(b.text))) p.push('card.body');
  return p;
}

/** Discord Execute Webhook: discord.com/developers/docs/resources/webhook#execute-webhook. */
function discordProblems(body: Json | null): string[] {
  if (!body) return ['body is not JSON'];
  const p: string[] = [];
  if (!isString(body.content, 1, 2000)) p.push('content');
  if (body.username !== undefined && !isString(body.username, 1, 80)) p.push('username');
  const mentions = body.allowed_mentions as Json | undefined;
  if (mentions !== undefined && !Array.isArray(mentions.parse)) p.push('allowed_mentions');
  return p;
}

/** ntfy publish: docs.ntfy.sh/publish/. */
function ntfyProblems(headers: http.IncomingHttpHeaders, body: string): string[] {
  const p: string[] = [];
  if (!body) p.push('body');
  if (headers.priority !== undefined && !/^[1-5]$/.test(String(headers.priority))) p.push('priority');
  const title = headers.title;
  if (title !== undefined && /[^\x20-\x7e]/.test(String(title))) p.push('title (non-ASCII not encoded)');
  return p;
}

export async function startAlertProviders() {
  const requests: ProviderRequest[] = [];
  const failures = new Map<string, number[]>();
  const held = new Map<string, Array<() => void>>();
  const heldPrefixes = new Set<string>();

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const body = Buffer.concat(chunks).toString('utf8');
      let json: Json | null = null;
      try {
        const parsed = JSON.parse(body) as unknown;
        if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) json = parsed as Json;
      } catch {
        // Not JSON: ntfy, or a broken body.
      }
      let problems: string[] = [];
      let ok = 200;
      let answer: unknown = {};
      if (req.method !== 'POST') problems = ['method'];
      else if (path.startsWith('/pd/')) {
        problems = path === '/pd/v2/enqueue' ? pagerdutyProblems(json) : ['path'];
        ok = 202;
        answer = { status: 'success', message: 'Event processed', dedup_key: json?.dedup_key };
      } else if (path.startsWith('/og/')) {
        problems = opsgenieProblems(path, req.headers, json);
        ok = 202;
        answer = { result: 'Request will be processed', took: 0.01, requestId: 'fake' };
      } else if (path.startsWith('/tg/')) {
        problems = telegramProblems(path, json);
        answer = { ok: true, result: { message_id: requests.length + 1 } };
      } else if (path.startsWith('/teams/')) {
        problems = teamsProblems(json);
        ok = 202;
      } else if (path.startsWith('/discord/')) {
        problems = discordProblems(json);
        ok = 204;
      } else if (path.startsWith('/ntfy/')) {
        problems = ntfyProblems(req.headers, body);
        answer = { id: 'fake', event: 'message', topic: path.split('/')[2], message: body };
      } else problems = ['no such provider path'];

      const forced = [...failures.entries()].find(([prefix, list]) => path.startsWith(prefix) && list.length);
      const status = forced ? forced[1].shift()! : problems.length ? 400 : ok;
      requests.push({ method: req.method ?? '', path, headers: req.headers, body, json, problems, status });
      const reply = () => {
        if (status === 204) res.writeHead(204).end();
        else
          res
            .writeHead(status, { 'content-type': 'application/json' })
            .end(JSON.stringify(status < 300 ? answer : { problems }));
      };
      const prefix = [...heldPrefixes].find((p) => path.startsWith(p));
      if (prefix) held.set(prefix, [...(held.get(prefix) ?? []), reply]);
      else reply();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    /** The configuration that points the providers here. */
    env: {
      PAGERDUTY_EVENTS_URL: `${base}/pd/v2/enqueue`,
      OPSGENIE_API_URL: `${base}/og`,
      TELEGRAM_API_URL: `${base}/tg`,
    },
    requests,
    /** Requests whose path starts with `prefix` and whose body mentions `marker` (an incident id, a topic). */
    to: (prefix: string, marker = '') =>
      requests.filter((r) => r.path.startsWith(prefix) && (r.body.includes(marker) || r.path.includes(marker))),
    failNext(prefix: string, ...statuses: number[]) {
      failures.set(prefix, [...(failures.get(prefix) ?? []), ...statuses]);
    },
    hold(prefix: string) {
      heldPrefixes.add(prefix);
    },
    /** Answers the held requests under `prefix` and stops holding. */
    release(prefix: string) {
      heldPrefixes.delete(prefix);
      for (const reply of held.get(prefix) ?? []) reply();
      held.delete(prefix);
    },
    close: () => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}
