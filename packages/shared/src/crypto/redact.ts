/**
 * What a secret shows as wherever a record leaves in a copy that is not its own read (audit changes, config plans,
 * GET /config, the event log and so webhook deliveries); sent back in a workspace document it means "unchanged".
 */
export const REDACTED = '<redacted>';

/**
 * Field names that hold a secret wherever they appear: request headers and body, a heartbeat's `pingUrl` (its path
 * is the ping secret), provider keys, and anything named like a password, secret or token.
 */
const SECRET_KEY = /^(headers|body|pingurl|apikey|routingkey|bottoken)$|(password|secret|token)$/i;

/**
 * `value` with every secret field (SECRET_KEY, at any depth) but a null one shown as REDACTED: the one redaction of
 * what goes into audit changes and the event log. A secret field's audit change (`{ from, to }`) keeps its shape,
 * each side but null redacted.
 */
export function redactSecrets<T>(value: T): T {
  return redact(value) as T;
}

/**
 * `JSON.stringify(redactSecrets(value))` in one pass, with no copy of `value` made on the way: what the event log and
 * audit changes store.
 */
export function redactedJson(value: unknown): string {
  return JSON.stringify(value, redactedField);
}

function redactedField(key: string, value: unknown): unknown {
  return value !== null && SECRET_KEY.test(key) ? redactAll(value) : value;
}

function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, SECRET_KEY.test(k) && v !== null ? redactAll(v) : redact(v)]),
    );
  }
  return value;
}

function redactAll(value: unknown): unknown {
  if (value && typeof value === 'object' && !Array.isArray(value) && 'from' in value && 'to' in value) {
    const { from, to } = value as { from: unknown; to: unknown };
    return { from: from === null ? null : REDACTED, to: to === null ? null : REDACTED };
  }
  return REDACTED;
}
