/**
 * The HTTP request each channel sends for a page or a notice: pure functions, no network. Each follows the
 * provider's documented format (cited per channel). `guarded`: the URL is the workspace's (SSRF guard on every
 * connection); provider URLs come from the operator's configuration (PAGERDUTY_EVENTS_URL, OPSGENIE_API_URL,
 * TELEGRAM_API_URL) and are not guarded, as the SMTP server is not.
 */
import type { AlertProviders } from '../config/config.js';
import type { ChannelTargetInput } from '../escalation/channels.js';
import { chatMessage, incidentOf, slackBody, webhookBody, type Message } from './page.js';

export interface HttpRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
  guarded: boolean;
}

export type HttpTarget = Exclude<ChannelTargetInput, { channel: 'email' }>;

/** Cut to `max` characters (a provider refuses or truncates longer fields), marking the cut. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8' };
const json = (url: string, body: unknown, guarded: boolean, headers: Record<string, string> = {}): HttpRequest => ({
  url,
  body: JSON.stringify(body),
  headers: { ...JSON_TYPE, ...headers },
  guarded,
});

const PAGERDUTY_SEVERITY: Record<string, string> = {
  critical: 'critical',
  major: 'error',
  minor: 'warning',
  none: 'info',
};

/**
 * PagerDuty Events API v2 (developer.pagerduty.com/docs/events-API-v2/trigger-events/, .../acknowledge-events/,
 * .../resolve-events/): POST to the enqueue URL `{ routing_key, event_action, dedup_key, payload, client }`;
 * `payload` (trigger only) has the required `summary` (up to 1024 characters), `source` and `severity`
 * (critical|error|warning|info), and the optional `timestamp`, `class` and `custom_details`. Answers 202.
 * `dedup_key` is the incident id: every step and cycle of one incident lands on one PagerDuty alert, and the
 * acknowledge and resolve events find it.
 */
function pagerduty(target: { routingKey: string }, m: Message, providers: AlertProviders): HttpRequest {
  const incident = incidentOf(m);
  const base = { routing_key: target.routingKey, dedup_key: incident.id };
  if (m.kind === 'notice' && m.notice.kind !== 'handoff') {
    const event_action = m.notice.kind === 'acknowledged' ? 'acknowledge' : 'resolve';
    return json(providers.pagerdutyEventsUrl, { ...base, event_action }, false);
  }
  // A page, or a handoff (the incoming on-call user's own PagerDuty: the open incident is theirs now).
  const details =
    m.kind === 'page'
      ? {
          workspaceId: m.page.workspaceId,
          policy: m.page.policy.name,
          step: m.page.step.position + 1,
          cycle: m.page.step.cycle,
          runbook: m.page.policy.runbook,
        }
      : { workspaceId: m.notice.workspaceId, handoff: m.notice.schedule?.name ?? true };
  const links = m.kind === 'page' && m.page.links ? m.page.links : null;
  return json(
    providers.pagerdutyEventsUrl,
    {
      ...base,
      event_action: 'trigger',
      payload: {
        summary: clip(`${incident.title} (impact ${incident.impact})`, 1024),
        source: incident.monitorId ? `statusvane monitor ${incident.monitorId}` : 'statusvane',
        severity: PAGERDUTY_SEVERITY[incident.impact] ?? 'error',
        timestamp: incident.startedAt,
        class: incident.source,
        custom_details: { incidentId: incident.id, ...details, metadata: incident.metadata },
      },
      // Events API v2 `links`: shown on the alert, so the acknowledge and resolve pages are a click away.
      ...(links
        ? {
            links: [
              { href: links.acknowledge, text: 'Acknowledge in Statusvane' },
              { href: links.resolve, text: 'Resolve in Statusvane' },
            ],
          }
        : {}),
      client: 'Statusvane',
    },
    false,
  );
}

const OPSGENIE_PRIORITY: Record<string, string> = { critical: 'P1', major: 'P2', minor: 'P3', none: 'P5' };

/**
 * Opsgenie Alert API (docs.opsgenie.com/docs/alert-api): `Authorization: GenieKey <apiKey>`; create alert: POST
 * `/v2/alerts` `{ message (up to 130 characters), alias (up to 512), description (up to 15000), source, priority
 * P1-P5, details (string map), tags }`; acknowledge and close: POST `/v2/alerts/{alias}/acknowledge` and
 * `/v2/alerts/{alias}/close` with `?identifierType=alias` and `{ source, note }`. All answer 202. `alias` is the
 * incident id: Opsgenie keeps one open alert per alias, so repeated steps add to it, and acknowledge and close find it.
 */
function opsgenie(target: { apiKey: string }, m: Message, providers: AlertProviders): HttpRequest {
  const incident = incidentOf(m);
  const auth = { authorization: `GenieKey ${target.apiKey}` };
  if (m.kind === 'notice' && m.notice.kind !== 'handoff') {
    const action = m.notice.kind === 'acknowledged' ? 'acknowledge' : 'close';
    const url = `${providers.opsgenieApiUrl}/v2/alerts/${encodeURIComponent(incident.id)}/${action}?identifierType=alias`;
    const note = `${m.notice.kind === 'acknowledged' ? 'Acknowledged' : 'Resolved'} in Statusvane at ${m.notice.at}.`;
    return json(url, { source: 'Statusvane', note }, false, auth);
  }
  const details: Record<string, string> = {
    ...incident.metadata,
    incidentId: incident.id,
    ...(m.kind === 'page'
      ? { policy: m.page.policy.name, step: String(m.page.step.position + 1), cycle: String(m.page.step.cycle) }
      : { handoff: m.notice.schedule?.name ?? 'on call' }),
    ...(m.kind === 'page' && m.page.links
      ? { acknowledgeUrl: m.page.links.acknowledge, resolveUrl: m.page.links.resolve }
      : {}),
    ...(incident.monitorId ? { monitorId: incident.monitorId } : {}),
  };
  return json(
    `${providers.opsgenieApiUrl}/v2/alerts`,
    {
      message: clip(incident.title, 130),
      alias: incident.id,
      description: clip(chatMessage(m).text, 15_000),
      source: 'Statusvane',
      priority: OPSGENIE_PRIORITY[incident.impact] ?? 'P3',
      details,
      tags: ['statusvane', `impact:${incident.impact}`],
    },
    false,
    auth,
  );
}

/**
 * Microsoft Teams: an Adaptive Card in a `message` attachment, the format both an incoming webhook and a Workflows
 * "post to a channel when a webhook request is received" URL accept (learn.microsoft.com/microsoftteams/platform/
 * webhooks-and-connectors/how-to/add-incoming-webhook, "Send Adaptive Cards using an Incoming Webhook").
 */
function teams(url: string, m: Message): HttpRequest {
  const { title, text } = chatMessage(m);
  const links = m.kind === 'page' ? m.page.links : undefined;
  return json(
    url,
    {
      type: 'message',
      attachments: [
        {
          contentType: 'application/vnd.microsoft.card.adaptive',
          contentUrl: null,
          content: {
            $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
            type: 'AdaptiveCard',
            version: '1.4',
            body: [
              { type: 'TextBlock', text: title, weight: 'Bolder', size: 'Medium', wrap: true },
              { type: 'TextBlock', text, wrap: true },
            ],
            ...(links
              ? {
                  actions: [
                    { type: 'Action.OpenUrl', title: 'Acknowledge', url: links.acknowledge },
                    { type: 'Action.OpenUrl', title: 'Resolve', url: links.resolve },
                  ],
                }
              : {}),
          },
        },
      ],
    },
    true,
  );
}

const CHAT_EMOJI = { page: '🚨', acknowledged: '👀', resolved: '✅', handoff: '📟' } as const;

/**
 * Discord "Execute Webhook" (discord.com/developers/docs/resources/webhook#execute-webhook): POST `{ content (up to
 * 2000 characters), username, allowed_mentions }`; answers 204. `allowed_mentions: { parse: [] }` so that nothing
 * in an incident title (`@everyone`) pings anyone.
 */
function discord(url: string, m: Message): HttpRequest {
  const { title, text, icon } = chatMessage(m);
  return json(
    url,
    {
      content: clip(`${CHAT_EMOJI[icon]} **${title}**\n${text}`, 2000),
      username: 'Statusvane',
      allowed_mentions: { parse: [] },
    },
    true,
  );
}

/** A header value: printable ASCII as it is, anything else as an RFC 2047 encoded word (ntfy decodes those). */
export function headerText(value: string): string {
  const oneLine = value.replace(/[\r\n]+/g, ' ');
  return /^[\x20-\x7e]*$/.test(oneLine) ? oneLine : `=?UTF-8?B?${Buffer.from(oneLine, 'utf8').toString('base64')}?=`;
}

const NTFY_PRIORITY: Record<string, string> = { critical: '5', major: '4', minor: '3', none: '2' };
const NTFY_TAGS = {
  page: 'rotating_light',
  acknowledged: 'eyes',
  resolved: 'white_check_mark',
  handoff: 'pager',
} as const;

/**
 * ntfy "Publishing" (docs.ntfy.sh/publish/): POST the message as the plain-text body to the topic URL, with the
 * `Title`, `Priority` (1-5; a page's follows the impact, a notice is 3, the default) and `Tags` (emoji short
 * codes) headers. A topic URL may carry ntfy's `?auth=` query, which is kept.
 */
function ntfy(url: string, m: Message): HttpRequest {
  const { title, text, icon } = chatMessage(m);
  const priority = m.kind === 'page' ? (NTFY_PRIORITY[m.page.incident.impact] ?? '4') : '3';
  return {
    url,
    body: text,
    headers: {
      'content-type': 'text/plain; charset=utf-8',
      title: headerText(clip(title, 250)),
      priority,
      tags: NTFY_TAGS[icon],
      // Action buttons (docs.ntfy.sh/publish/#action-buttons, the header form): `view` opens the link's confirmation
      // page, where the tap is confirmed; a button never acts on its own.
      ...(m.kind === 'page' && m.page.links
        ? {
            actions: `view, Acknowledge, ${m.page.links.acknowledge}, clear=true; view, Resolve, ${m.page.links.resolve}, clear=true`,
          }
        : {}),
    },
    guarded: true,
  };
}

/**
 * Telegram Bot API `sendMessage` (core.telegram.org/bots/api#sendmessage): POST
 * `<TELEGRAM_API_URL>/bot<token>/sendMessage` `{ chat_id, text (up to 4096 characters), link_preview_options }`.
 * Plain text (no `parse_mode`), so nothing in a title needs escaping.
 */
function telegram(target: { botToken: string; chatId: string }, m: Message, providers: AlertProviders): HttpRequest {
  const { title, text, icon } = chatMessage(m);
  return json(
    `${providers.telegramApiUrl}/bot${target.botToken}/sendMessage`,
    {
      chat_id: target.chatId,
      text: clip(`${CHAT_EMOJI[icon]} ${title}\n${text}`, 4096),
      link_preview_options: { is_disabled: true },
    },
    false,
  );
}

/**
 * The request for one target and message. Webhook: the JSON page or notice, to which the deliverer adds the
 * signature headers on each attempt. Slack: an incoming-webhook `{ text }`.
 */
export function httpRequestFor(target: HttpTarget, m: Message, providers: AlertProviders): HttpRequest {
  switch (target.channel) {
    case 'webhook':
      return { url: target.target, body: webhookBody(m), headers: { ...JSON_TYPE }, guarded: true };
    case 'slack':
      return { url: target.target, body: slackBody(m), headers: { ...JSON_TYPE }, guarded: true };
    case 'teams':
      return teams(target.target, m);
    case 'discord':
      return discord(target.target, m);
    case 'ntfy':
      return ntfy(target.target, m);
    case 'pagerduty':
      return pagerduty(target, m, providers);
    case 'opsgenie':
      return opsgenie(target, m, providers);
    case 'telegram':
      return telegram(target, m, providers);
  }
}
