/**
 * What every probe returns: one check result, ready to be stored as a CheckResult row.
 *
 * `reason` is null for a plain `up`. Otherwise it starts with a stable code, optionally followed by
 * `: <detail>` for humans, so the code can be grouped on with `split(':')[0]`:
 *   timeout, connection_refused, connection_reset, host_unreachable, network_unreachable,
 *   connection_error:<CODE>, dns_error, ssrf_blocked, tls_error, too_many_redirects, invalid_response,
 *   invalid_request, request_error, invalid_target: <detail>, unexpected_status:<code>, keyword_missing, keyword_present,
 *   invalid_json (or `invalid_json: body truncated at <n> bytes`), json_assertion_failed: <detail>,
 *   latency_threshold_exceeded: <n>ms > <m>ms, certificate_expiring: <detail>,
 *   dns_nxdomain, dns_mismatch: <detail>,
 *   fail_ping, heartbeat_missed, run_timeout, run_too_long, run_too_short,
 *   domain_expiring: <detail>, domain_not_found, rdap_error: <detail>,
 *   config_error: <detail> (the monitor's own stored settings are unusable, e.g. secrets that cannot be decrypted),
 *   schema_mismatch: <instance path>: <message> (responseSchema), secret_host_not_allowed: <detail>,
 *   step_failed: <step name>: <the step's reason> (api; a step's own reasons add assertion_failed: <detail> and
 *   extract_missing: <detail>)
 * and for `degraded`: `slow: <n>ms > <m>ms`.
 * Reasons are capped at REASON_MAX_LENGTH characters (the column is VARCHAR(500)).
 */
import type { CertificateInfo, StepResult } from '@statusvane/shared';

export type ProbeOutcome = 'up' | 'degraded' | 'down';

export interface ProbePhases {
  /** Name resolution; null when no lookup happened (IP-literal host) or it never finished. */
  dnsMs: number | null;
  /** TCP connect; null when no connection was established. */
  connectMs: number | null;
  /** TLS handshake; null for plain http / tcp or when it never finished. */
  tlsMs: number | null;
  /** Request sent -> first response byte; null when no response arrived (and always for tcp). */
  waitingMs: number | null;
}

export interface ProbeResult {
  outcome: ProbeOutcome;
  reason: string | null;
  /** Total time of the check in whole milliseconds; null when no response (or no connection, for tcp) was obtained. */
  responseMs: number | null;
  /** Final HTTP status code (after redirects); null for tcp, heartbeat and connection-level failures. */
  statusCode: number | null;
  phases: ProbePhases;
  /** https: the leaf certificate of the first https hop, when its TLS handshake completed; absent otherwise. */
  certificate?: CertificateInfo | null;
  /** dns: the answers, as `dig +short` prints them; absent (or null) when none was obtained. */
  dnsAnswers?: string[] | null;
  /**
   * The IP address the check talked to (no port): http and tcp the address dialled last (the one that answered, or
   * the one that refused or did not answer in time), dns the resolver asked. Absent (or null) when none was dialled:
   * a name that did not resolve, a refused target, heartbeats.
   */
  address?: string | null;
  /** api: one entry per step, in order (secrets shown as `<secret:NAME>` in reasons); absent for other types. */
  steps?: StepResult[] | null;
  /** http: the trace id of the `traceparent` header the check sent (runCheck adds it); absent when none was sent. */
  traceId?: string | null;
}

/** Latency rules shared by the http and tcp probes (null = not configured). */
export interface LatencyRules {
  degradedAfterMs: number | null;
  latencyThresholdMs: number | null;
}

export const REASON_MAX_LENGTH = 500;

export const NO_PHASES: Readonly<ProbePhases> = Object.freeze({
  dnsMs: null,
  connectMs: null,
  tlsMs: null,
  waitingMs: null,
});
