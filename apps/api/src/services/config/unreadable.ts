import type { Issue } from '@statusvane/shared';

/**
 * What GET /config and plans show for a stored secret that no configured key opens (its key was retired before
 * `secrets rotate` moved the value under the current key, or the value is damaged). A document may say it where it
 * may say `"<redacted>"`: both mean "the stored value", which cannot be kept unread (a 400 at its path).
 */
export const UNREADABLE = '<unreadable>';

/** A stored secret that could not be decrypted, in a view: it compares and serialises as `"<unreadable>"`. */
export class UnreadableSecret {
  constructor(readonly keyId: string | null) {}
  toJSON(): string {
    return UNREADABLE;
  }
}

export const isUnreadable = (value: unknown): value is UnreadableSecret => value instanceof UnreadableSecret;

/** The 400 of a document that asks to keep (`"<redacted>"`, `"<unreadable>"`) a stored secret that cannot be read. */
export function unreadableIssue(path: string, given: string, what: string, secret: UnreadableSecret): Issue {
  const key = secret.keyId === null ? 'a key it does not name' : `key "${secret.keyId}"`;
  return {
    path,
    message:
      `is "${given}" but the stored ${what} cannot be decrypted (sealed with ${key}, which is not configured or ` +
      'does not open it): give the value again to replace it, or configure that key in ENCRYPTION_OLD_KEYS',
  };
}
