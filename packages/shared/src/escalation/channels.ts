import { z } from 'zod';

/**
 * Escalation target channels (docs/escalation.md). What a target is, per channel:
 * - webhook, slack, teams, discord, ntfy: a URL the workspace gives (`target`), SSRF-guarded at write and send time;
 * - email: an address (`target`);
 * - pagerduty: an Events API v2 `routingKey`; opsgenie: an API integration `apiKey`; telegram: a `botToken` and a
 *   `chatId`. These are sent to the providers' URLs from configuration (PAGERDUTY_EVENTS_URL, OPSGENIE_API_URL,
 *   TELEGRAM_API_URL), not to a URL the workspace chose.
 */
export const DELIVERY_CHANNELS = [
  'webhook',
  'slack',
  'email',
  'pagerduty',
  'opsgenie',
  'teams',
  'discord',
  'ntfy',
  'telegram',
] as const;
export type DeliveryChannel = (typeof DELIVERY_CHANNELS)[number];

/**
 * Escalation targets also name people (beyond-the-seed section 10): `schedule` (whoever is on call at that step) and
 * `user`, paged through the user's contact methods, each of which is one of the DELIVERY_CHANNELS.
 */
export const PERSON_CHANNELS = ['schedule', 'user'] as const;
export type PersonChannel = (typeof PERSON_CHANNELS)[number];
export const ESCALATION_CHANNELS = [...DELIVERY_CHANNELS, ...PERSON_CHANNELS] as const;
export type EscalationChannel = (typeof ESCALATION_CHANNELS)[number];
export const isPersonChannel = (channel: EscalationChannel): channel is PersonChannel =>
  (PERSON_CHANNELS as readonly string[]).includes(channel);

/** Channels whose target is a URL of the workspace's choosing: checked by the SSRF guard when written and sent. */
export const URL_CHANNELS = ['webhook', 'slack', 'teams', 'discord', 'ntfy'] as const;
export type UrlChannel = (typeof URL_CHANNELS)[number];
export const isUrlChannel = (channel: EscalationChannel): channel is UrlChannel =>
  (URL_CHANNELS as readonly string[]).includes(channel);

const httpUrl = z.url({ protocol: /^https?$/, message: 'must be an absolute http(s) URL' }).max(2048);
const urlTarget = <C extends UrlChannel>(channel: C) =>
  z.object({ channel: z.literal(channel), target: httpUrl }).strict();

/** A Telegram chat: a numeric id (negative for groups and channels) or a public `@channelusername`. */
const chatId = z.preprocess(
  (v) => (typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : v),
  z
    .string({ error: 'must be a numeric chat id or an @channelusername' })
    .regex(/^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{3,31})$/, 'must be a numeric chat id or an @channelusername'),
);

/**
 * Where a message can be sent (section 5): a policy step's target, and a user's contact method (`PUT
 * /me/contact-methods`). Strict: unknown keys are refused, and each channel names its own fields.
 */
export const channelTargetSchema = z.discriminatedUnion('channel', [
  urlTarget('webhook'),
  urlTarget('slack'),
  z.object({ channel: z.literal('email'), target: z.email('must be an email address').max(320) }).strict(),
  urlTarget('teams'),
  urlTarget('discord'),
  urlTarget('ntfy'),
  z
    .object({
      channel: z.literal('pagerduty'),
      // "The 32 character Integration Key for an integration on a service or on a global ruleset" (Events API v2).
      routingKey: z
        .string({ error: 'must be a string' })
        .regex(/^[A-Za-z0-9]{32}$/, 'must be the 32-character Integration Key of an Events API v2 integration'),
    })
    .strict(),
  z
    .object({
      channel: z.literal('opsgenie'),
      // Sent as `Authorization: GenieKey <apiKey>`: header-safe characters only (API integration keys are UUIDs).
      apiKey: z
        .string({ error: 'must be a string' })
        .regex(/^[A-Za-z0-9-]{8,128}$/, 'must be an Opsgenie API integration key (letters, digits and hyphens)'),
    })
    .strict(),
  z
    .object({
      channel: z.literal('telegram'),
      // `<bot id>:<secret>` as BotFather gives it; it becomes a path segment of the Bot API URL, so nothing else.
      botToken: z
        .string({ error: 'must be a string' })
        .regex(/^\d{1,20}:[A-Za-z0-9_-]{20,100}$/, 'must be a bot token as BotFather gives it (<digits>:<secret>)'),
      chatId,
    })
    .strict(),
]);
export type ChannelTargetInput = z.output<typeof channelTargetSchema>;

const personTarget = <C extends PersonChannel>(channel: C) =>
  z
    .object({
      channel: z.literal(channel),
      target: z.uuid(`must be the id of a ${channel} of the workspace`).transform((id) => id.toLowerCase()),
    })
    .strict();

/**
 * One target of a policy step, as written by a client (the admin CLI's `policy create --json`, and the spec's
 * escalation-policy endpoints): a channel target, or a schedule or a user of the workspace by id.
 */
export const escalationTargetSchema = z.discriminatedUnion('channel', [
  ...channelTargetSchema.options,
  personTarget('schedule'),
  personTarget('user'),
]);
export type EscalationTargetInput = z.output<typeof escalationTargetSchema>;

/** The one string a target is stored (encrypted) as: the URL or address, the key, or JSON for Telegram's pair. */
export function targetSecret(t: EscalationTargetInput): string {
  switch (t.channel) {
    case 'pagerduty':
      return t.routingKey;
    case 'opsgenie':
      return t.apiKey;
    case 'telegram':
      return JSON.stringify({ botToken: t.botToken, chatId: t.chatId });
    default:
      return t.target;
  }
}

/** The inverse of `targetSecret`, for the worker that sends. Throws on a Telegram secret that is not its JSON. */
export function targetFromSecret(channel: DeliveryChannel, secret: string): ChannelTargetInput;
export function targetFromSecret(channel: EscalationChannel, secret: string): EscalationTargetInput;
export function targetFromSecret(channel: EscalationChannel, secret: string): EscalationTargetInput {
  switch (channel) {
    case 'pagerduty':
      return { channel, routingKey: secret };
    case 'opsgenie':
      return { channel, apiKey: secret };
    case 'telegram': {
      const pair = JSON.parse(secret) as { botToken?: unknown; chatId?: unknown };
      if (typeof pair.botToken !== 'string' || typeof pair.chatId !== 'string')
        throw new Error('telegram target is not a botToken and chatId pair');
      return { channel, botToken: pair.botToken, chatId: pair.chatId };
    }
    default:
      return { channel, target: secret };
  }
}

/** `scheme://host[:port]/…`: a URL without its path, query and credentials, which may be secrets. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}/…`;
  } catch {
    return '…';
  }
}

const lastFour = (key: string) => `…${key.slice(-4)}`;

/**
 * How a target is shown in records, delivery rows and logs: never a secret. URLs (a Slack, Teams or Discord
 * webhook URL is enough to post; an ntfy topic is its own password) as `scheme://host[:port]/…`; keys by their
 * last four characters only, as a reminder of which key; a Telegram target by its chat (the bot token is the
 * secret); email addresses in full (the workspace configured them, and they say who was paged); a schedule or user
 * by its id.
 */
export function displayTarget(t: EscalationTargetInput): string {
  switch (t.channel) {
    case 'email':
      return t.target;
    case 'pagerduty':
      return `routing key ${lastFour(t.routingKey)}`;
    case 'opsgenie':
      return `API key ${lastFour(t.apiKey)}`;
    case 'telegram':
      return `chat ${t.chatId}`;
    case 'schedule':
    case 'user':
      return t.target; // an id, not a secret: the record names the schedule or user
    default:
      return redactUrl(t.target);
  }
}

/**
 * A stored display form, shown again: URLs are redacted once more (a no-op on what `displayTarget` wrote, and it
 * keeps a stray full URL of an old row out); the other forms are shown as stored.
 */
export function shownTarget(channel: EscalationChannel, stored: string): string {
  return isUrlChannel(channel) ? redactUrl(stored) : stored;
}
