import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  displayTarget,
  escalationTargetSchema,
  shownTarget,
  targetFromSecret,
  targetSecret,
  type EscalationTargetInput,
} from './channels.js';

const ROUTING_KEY = 'e93facc04764012d7bfb002500d5d1a6';
const BOT_TOKEN = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';

/** The paths of the issues a target gives, or null when it parses. */
function issues(target: unknown): string[] | null {
  const r = escalationTargetSchema.safeParse(target);
  return r.success ? null : r.error.issues.map((i) => i.path.join('.') || '(root)');
}

describe('escalationTargetSchema', () => {
  it('accepts every channel with its own fields', () => {
    const ok: unknown[] = [
      { channel: 'webhook', target: 'https://example.com/hook' },
      { channel: 'slack', target: 'https://hooks.slack.com/services/T/B/X' },
      { channel: 'email', target: 'oncall@example.com' },
      { channel: 'teams', target: 'https://example.webhook.office.com/webhookb2/x' },
      { channel: 'discord', target: 'https://discord.com/api/webhooks/1/abc' },
      { channel: 'ntfy', target: 'https://ntfy.sh/statusvane-oncall' },
      { channel: 'pagerduty', routingKey: ROUTING_KEY },
      { channel: 'opsgenie', apiKey: 'eb243592-faa2-4ba2-a551-1afdf565c889' },
      { channel: 'telegram', botToken: BOT_TOKEN, chatId: '-1001234567890' },
      { channel: 'telegram', botToken: BOT_TOKEN, chatId: '@statusvane_ops' },
    ];
    for (const t of ok) expect([t, issues(t)]).toEqual([t, null]);
    // A numeric chat id as a JSON number is kept as a string.
    expect(escalationTargetSchema.parse({ channel: 'telegram', botToken: BOT_TOKEN, chatId: -42 })).toEqual({
      channel: 'telegram',
      botToken: BOT_TOKEN,
      chatId: '-42',
    });
  });

  it('names the field that is wrong, and refuses the fields of another channel', () => {
    expect(issues({ channel: 'pagerduty', routingKey: 'short' })).toEqual(['routingKey']);
    expect(issues({ channel: 'pagerduty' })).toEqual(['routingKey']);
    expect(issues({ channel: 'pagerduty', target: 'https://example.com' })).toEqual(['routingKey', '(root)']);
    expect(issues({ channel: 'opsgenie', apiKey: 'key with\r\nInjected: header' })).toEqual(['apiKey']);
    expect(issues({ channel: 'telegram', botToken: '123:abc/../../x', chatId: 1 })).toEqual(['botToken']);
    expect(issues({ channel: 'telegram', botToken: BOT_TOKEN, chatId: 'general' })).toEqual(['chatId']);
    expect(issues({ channel: 'telegram', botToken: BOT_TOKEN })).toEqual(['chatId']);
    expect(issues({ channel: 'ntfy', target: 'ftp://ntfy.sh/x' })).toEqual(['target']);
    expect(issues({ channel: 'discord', routingKey: ROUTING_KEY })).toEqual(['target', '(root)']);
    expect(issues({ channel: 'pager', target: 'x' })).toEqual(['channel']);
  });

  it('never throws: any JSON value parses or names what is wrong (a 400, never a 500)', () => {
    const channel = fc.constantFrom('webhook', 'email', 'pagerduty', 'opsgenie', 'telegram', 'ntfy', 'teams');
    const field = fc.constantFrom('target', 'routingKey', 'apiKey', 'botToken', 'chatId', 'extra');
    const target = fc.oneof(
      fc.anything(),
      fc
        .dictionary(field, fc.oneof(fc.string(), fc.integer(), fc.double(), fc.constant(null)))
        .chain((fields) => channel.map((c) => ({ channel: c, ...fields }))),
    );
    fc.assert(
      fc.property(target, (t) => {
        const r = escalationTargetSchema.safeParse(t);
        if (!r.success) expect(r.error.issues.length).toBeGreaterThan(0);
        else expect(targetFromSecret(r.data.channel, targetSecret(r.data))).toEqual(r.data);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('targetSecret and targetFromSecret', () => {
  it('round-trip every channel through the one stored string', () => {
    const targets: EscalationTargetInput[] = [
      { channel: 'webhook', target: 'https://example.com/hook?token=x' },
      { channel: 'email', target: 'a@example.com' },
      { channel: 'pagerduty', routingKey: ROUTING_KEY },
      { channel: 'opsgenie', apiKey: 'eb243592-faa2-4ba2-a551-1afdf565c889' },
      { channel: 'telegram', botToken: BOT_TOKEN, chatId: '-100' },
    ];
    for (const t of targets) expect(targetFromSecret(t.channel, targetSecret(t))).toEqual(t);
    expect(targetSecret({ channel: 'pagerduty', routingKey: ROUTING_KEY })).toBe(ROUTING_KEY);
    expect(() => targetFromSecret('telegram', '{"botToken":1}')).toThrow(/botToken and chatId/);
  });
});

describe('displayTarget', () => {
  it('keeps only scheme://host[:port] of URLs, which are credentials', () => {
    expect(displayTarget({ channel: 'slack', target: 'https://hooks.slack.com/services/T000/B000/XXXXSECRET' })).toBe(
      'https://hooks.slack.com/…',
    );
    expect(displayTarget({ channel: 'webhook', target: 'http://user:pw@10.0.0.1:8080/hook?token=abc#x' })).toBe(
      'http://10.0.0.1:8080/…',
    );
    expect(displayTarget({ channel: 'webhook', target: 'https://[2001:db8::1]/x' })).toBe('https://[2001:db8::1]/…');
    expect(displayTarget({ channel: 'ntfy', target: 'https://ntfy.sh/secret-topic' })).toBe('https://ntfy.sh/…');
    expect(displayTarget({ channel: 'discord', target: 'not a url' })).toBe('…');
  });

  it('shows keys by their last four characters, a Telegram target by its chat, an email address in full', () => {
    expect(displayTarget({ channel: 'pagerduty', routingKey: ROUTING_KEY })).toBe('routing key …d1a6');
    expect(displayTarget({ channel: 'opsgenie', apiKey: 'eb243592-faa2-4ba2-a551-1afdf565c889' })).toBe(
      'API key …c889',
    );
    expect(displayTarget({ channel: 'telegram', botToken: BOT_TOKEN, chatId: '-100' })).toBe('chat -100');
    expect(displayTarget({ channel: 'email', target: 'oncall@example.com' })).toBe('oncall@example.com');
  });

  it('shownTarget redacts a stored URL again and leaves the other forms alone', () => {
    expect(shownTarget('webhook', 'https://example.com/hook?token=x')).toBe('https://example.com/…');
    expect(shownTarget('teams', 'https://example.com/…')).toBe('https://example.com/…');
    expect(shownTarget('pagerduty', 'routing key …d1a6')).toBe('routing key …d1a6');
  });
});
