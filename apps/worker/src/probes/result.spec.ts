import { reasonForError } from '@statusvane/shared';
import { describe, expect, it } from '@jest/globals';
import { applyLatencyRules, downResult, truncateReason } from './result.js';
import { REASON_MAX_LENGTH } from './types.js';

const err = (code?: string, name?: string, cause?: unknown) =>
  Object.assign(new Error('x'), { code, ...(name ? { name } : {}), cause });

describe('reasonForError', () => {
  it.each<[unknown, string]>([
    [err('ESSRF'), 'ssrf_blocked'],
    [err('ERR_GOT_REQUEST_ERROR', 'RequestError', err('ESSRF')), 'ssrf_blocked'],
    [err('ETIMEDOUT', 'TimeoutError'), 'timeout'],
    [err(undefined, 'TimeoutError'), 'timeout'],
    [err('ETIMEDOUT'), 'timeout'],
    [err('ERR_TOO_MANY_REDIRECTS', 'MaxRedirectsError'), 'too_many_redirects'],
    [err('ECONNREFUSED'), 'connection_refused'],
    [err('ECONNRESET'), 'connection_reset'],
    [err('EPIPE'), 'connection_reset'],
    [err('ENOTFOUND'), 'dns_error'],
    [err('EAI_AGAIN'), 'dns_error'],
    [err('EHOSTUNREACH'), 'host_unreachable'],
    [err('ENETUNREACH'), 'network_unreachable'],
    [err('DEPTH_ZERO_SELF_SIGNED_CERT'), 'tls_error'],
    [err('CERT_HAS_EXPIRED'), 'tls_error'],
    [err('UNABLE_TO_VERIFY_LEAF_SIGNATURE'), 'tls_error'],
    [err('ERR_TLS_CERT_ALTNAME_INVALID'), 'tls_error'],
    [err('ERR_SSL_WRONG_VERSION_NUMBER'), 'tls_error'],
    [err('EPROTO'), 'tls_error'],
    [err('UNABLE_TO_GET_ISSUER_CERT_LOCALLY'), 'tls_error'],
    [err('HOSTNAME_MISMATCH'), 'tls_error'],
    [err('HPE_INVALID_CONSTANT'), 'invalid_response'],
    [err('ERR_HTTP_CONTENT_LENGTH_MISMATCH'), 'invalid_response'],
    [err('ERR_INVALID_CHAR'), 'invalid_request'],
    [err('ERR_INVALID_HTTP_TOKEN'), 'invalid_request'],
    [err('ERR_GOT_REQUEST_ERROR'), 'request_error'],
    [err(), 'request_error'],
    [null, 'request_error'],
    ['a string', 'request_error'],
    [err('EMFILE'), 'connection_error:EMFILE'],
  ])('%#: maps to %s', (e, reason) => {
    expect(reasonForError(e)).toBe(reason);
  });
});

describe('applyLatencyRules', () => {
  it('is up without thresholds', () => {
    expect(applyLatencyRules(99_999, { degradedAfterMs: null, latencyThresholdMs: null })).toEqual({
      outcome: 'up',
      reason: null,
    });
  });
  it('compares strictly: exactly the threshold passes', () => {
    expect(applyLatencyRules(500, { degradedAfterMs: 500, latencyThresholdMs: null }).outcome).toBe('up');
    expect(applyLatencyRules(501, { degradedAfterMs: 500, latencyThresholdMs: null })).toEqual({
      outcome: 'degraded',
      reason: 'slow: 501ms > 500ms',
    });
    expect(applyLatencyRules(1000, { degradedAfterMs: null, latencyThresholdMs: 1000 }).outcome).toBe('up');
    expect(applyLatencyRules(1234, { degradedAfterMs: null, latencyThresholdMs: 1000 })).toEqual({
      outcome: 'down',
      reason: 'latency_threshold_exceeded: 1234ms > 1000ms',
    });
  });
  it('the failing threshold wins when both are exceeded, whatever their order', () => {
    expect(applyLatencyRules(800, { degradedAfterMs: 500, latencyThresholdMs: 700 }).outcome).toBe('down');
    expect(applyLatencyRules(800, { degradedAfterMs: 900, latencyThresholdMs: 700 }).outcome).toBe('down');
    expect(applyLatencyRules(600, { degradedAfterMs: 500, latencyThresholdMs: 700 }).outcome).toBe('degraded');
  });
});

describe('truncateReason / downResult', () => {
  it('keeps short reasons and caps long ones at the column size', () => {
    expect(truncateReason('timeout')).toBe('timeout');
    const long = truncateReason('x'.repeat(2000));
    expect(long).toHaveLength(REASON_MAX_LENGTH);
    expect(long.endsWith('…')).toBe(true);
    expect(truncateReason('y'.repeat(REASON_MAX_LENGTH))).toBe('y'.repeat(REASON_MAX_LENGTH));
  });
  it('builds a down result with null timings by default', () => {
    expect(downResult('x'.repeat(600)).reason).toHaveLength(REASON_MAX_LENGTH);
    expect(downResult('dns_error')).toEqual({
      outcome: 'down',
      reason: 'dns_error',
      responseMs: null,
      statusCode: null,
      phases: { dnsMs: null, connectMs: null, tlsMs: null, waitingMs: null },
    });
  });
});
