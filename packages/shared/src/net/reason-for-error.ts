// Node's TLS failures: OpenSSL verification codes (CERT_HAS_EXPIRED, DEPTH_ZERO_SELF_SIGNED_CERT,
// UNABLE_TO_VERIFY_LEAF_SIGNATURE, HOSTNAME_MISMATCH ...), ERR_TLS_*, ERR_SSL_*, and EPROTO.
const TLS_CODE =
  /CERT|SSL|TLS|^UNABLE_TO_|^CRL_|^EPROTO$|^HOSTNAME_MISMATCH$|^INVALID_CA$|^INVALID_PURPOSE$|^PATH_LENGTH_EXCEEDED$/;

/**
 * Map a connection-level error (Node errno codes, got error classes, the SSRF guard's ESSRF) to a
 * reason code. Unknown codes keep their code for diagnosis instead of collapsing into one bucket.
 */
export function reasonForError(err: unknown): string {
  const e = (err ?? {}) as { code?: unknown; name?: unknown; cause?: unknown };
  const code = typeof e.code === 'string' ? e.code : undefined;
  const name = typeof e.name === 'string' ? e.name : undefined;
  // got wraps the original error; the guard's SsrfBlockedError may sit one level down.
  const causeCode =
    typeof (e.cause as { code?: unknown } | undefined)?.code === 'string'
      ? (e.cause as { code: string }).code
      : undefined;

  if (code === 'ESSRF' || causeCode === 'ESSRF') return 'ssrf_blocked';
  // A redirect would have taken a workspace secret to a host outside its allowedHosts (api steps, http monitors).
  if (code === 'ESECRETHOST' || causeCode === 'ESECRETHOST') return 'secret_host_not_allowed';
  if (name === 'TimeoutError' || code === 'ETIMEDOUT' || code === 'ESOCKETTIMEDOUT') return 'timeout';
  if (name === 'MaxRedirectsError' || code === 'ERR_TOO_MANY_REDIRECTS') return 'too_many_redirects';
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection_refused';
    case 'ECONNRESET':
    case 'EPIPE':
    case 'ECONNABORTED':
      return 'connection_reset';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
    case 'EAI_NODATA':
    case 'EAI_NONAME':
    case 'ENODATA':
      return 'dns_error';
    case 'EHOSTUNREACH':
    case 'EHOSTDOWN':
      return 'host_unreachable';
    case 'ENETUNREACH':
    case 'ENETDOWN':
      return 'network_unreachable';
    // The monitor's own headers are unusable (Node refuses them before sending anything).
    case 'ERR_INVALID_CHAR':
    case 'ERR_INVALID_HTTP_TOKEN':
    case 'ERR_HTTP_INVALID_HEADER_VALUE':
      return 'invalid_request';
    // The server closed before sending the Content-Length it announced.
    case 'ERR_HTTP_CONTENT_LENGTH_MISMATCH':
      return 'invalid_response';
    default:
      break;
  }
  if (code !== undefined && TLS_CODE.test(code)) return 'tls_error';
  if (code !== undefined && code.startsWith('HPE_')) return 'invalid_response';
  if (code === undefined || code === 'ERR_GOT_REQUEST_ERROR') return 'request_error';
  return `connection_error:${code}`;
}
