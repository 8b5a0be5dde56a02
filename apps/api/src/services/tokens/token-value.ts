import { randomSecret } from '@statusvane/shared';
import type { TokenKind } from '../auth/context.js';

export const TOKEN_PREFIX: Record<TokenKind, string> = { org: 'sv_', personal: 'svu_', oauth: 'mcp_at_' };

/** A new token: the prefix of its kind and 32 random bytes (256 bits) in base64url. Shown once, stored hashed. */
export function newToken(kind: TokenKind): string {
  return `${TOKEN_PREFIX[kind]}${randomSecret(32)}`;
}

/** What listings show instead of the secret: the prefix and the first four characters. */
export function displayPrefix(token: string, kind: TokenKind): string {
  return token.slice(0, TOKEN_PREFIX[kind].length + 4);
}
