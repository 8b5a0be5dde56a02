import { AppError } from '@statusvane/shared';

/**
 * A refusal of a bearer token that says why in `WWW-Authenticate` (RFC 6750 §3): `invalid_token` (401: a token
 * meant for another resource) or `insufficient_scope` (403: a `read` OAuth token on a write). The error middleware
 * (and the MCP endpoint) write `challenge` as the header; the body is the usual envelope.
 */
export class BearerError extends AppError {
  constructor(
    readonly error: 'invalid_token' | 'insufficient_scope',
    message: string,
  ) {
    super(error === 'invalid_token' ? 'unauthorized' : 'forbidden', message);
  }

  /** The `WWW-Authenticate` value, with `extra` parameters (`resource_metadata` at /mcp). */
  challenge(extra = ''): string {
    const scope = this.error === 'insufficient_scope' ? ', scope="write"' : '';
    return `Bearer error="${this.error}"${scope}, error_description="${this.message.replace(/"/g, "'")}"${extra}`;
  }
}

/** A write (any method but GET, any write tool) needs an OAuth token's `write` scope; other callers have no scope. */
export function assertWriteScope(scope: 'read' | 'write' | undefined): void {
  if (scope === 'read')
    throw new BearerError('insufficient_scope', 'This token has the read scope only: writes need write');
}
