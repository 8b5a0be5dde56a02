import { encryptSecret, parseDnsResolver, type Config, type Issue, type SsrfGuard } from '@statusvane/shared';

/**
 * Write-time SSRF check, as issues on `target`. A blocked address is refused. A name that does not resolve today, or
 * whose lookup takes longer than the guard's write-time bound (2.5 s), is accepted: it cannot be shown to point
 * inward now, and the worker checks every connection again at connect time.
 */
export async function targetIssues(guard: SsrfGuard, type: 'http' | 'tcp', target: string): Promise<Issue[]> {
  const result = type === 'http' ? await guard.checkUrl(target) : await guard.checkHostPort(target);
  if (result.ok || result.code === 'dns') return [];
  return [
    { path: 'target', message: result.code === 'blocked' ? `target is not allowed: ${result.reason}` : result.reason },
  ];
}

/**
 * Write-time SSRF check of a DNS monitor's resolver (already well-formed), as issues on `dnsResolver`: its address is
 * judged like a target's. The worker asserts it again before every query.
 */
export async function resolverIssues(guard: SsrfGuard, resolver: string): Promise<Issue[]> {
  const result = await guard.checkHostPort(parseDnsResolver(resolver));
  if (result.ok) return [];
  return [
    {
      path: 'dnsResolver',
      message: result.code === 'blocked' ? `resolver is not allowed: ${result.reason}` : result.reason,
    },
  ];
}

/**
 * The fields the rules between fields look at, as they would be after the write. `undefined` means "not known": the
 * field failed its own checks (already reported), so a rule that needs it is skipped rather than guessed.
 */
export interface CrossFieldState {
  method: string | undefined;
  hasBody: boolean | undefined;
  /** Heartbeats' run bounds (null: not set). */
  minRunSeconds: number | null | undefined;
  maxRunSeconds: number | null | undefined;
}

/**
 * Rules that span fields, checked on the monitor as it would be after the write. The latency thresholds are not among
 * them: every value of the seed's range (1 to 60000) is accepted, whatever `timeoutMs` is. One at or above
 * `timeoutMs` (or `degradedAfterMs` at or above `latencyThresholdMs`) never fires, which is harmless, and clients
 * written to the seed send such values (docs/decisions.md, "Monitors").
 */
export function crossFieldIssues(s: CrossFieldState): Issue[] {
  const issues: Issue[] = [];
  if (s.hasBody === true && (s.method === 'GET' || s.method === 'HEAD'))
    issues.push({ path: 'body', message: `a request body needs method POST (method is ${s.method})` });
  // Equal bounds would fail every run, one way or the other.
  if (s.minRunSeconds != null && s.maxRunSeconds != null && s.minRunSeconds >= s.maxRunSeconds)
    issues.push({
      path: 'minRunSeconds',
      message: `must be below maxRunSeconds (${s.maxRunSeconds}): no run could pass both`,
    });
  return issues;
}

/** The same state read from a stored row. */
export function crossFieldStateOf(row: {
  method: string;
  bodyEnc: string | null;
  minRunSeconds: number | null;
  maxRunSeconds: number | null;
}): CrossFieldState {
  return {
    method: row.method,
    hasBody: row.bodyEnc !== null,
    minRunSeconds: row.minRunSeconds,
    maxRunSeconds: row.maxRunSeconds,
  };
}

/**
 * Headers and body are stored only as AES-256-GCM ciphertext, each naming the key that sealed it (`v1:<keyId>:...`),
 * so replacing one of them under a new key leaves the other readable under its old one. The record shows the header
 * names. `encKeyId` is left alone: it only serves values written before they named their key; once neither secret
 * is such a value it is cleared.
 */
export function sealSecrets(
  config: Config,
  headers: Record<string, string> | undefined,
  body: string | null | undefined,
) {
  const out: { headersEnc?: string | null; headerNames?: string[]; bodyEnc?: string | null; encKeyId?: null } = {};
  if (headers !== undefined) {
    const names = Object.keys(headers);
    out.headerNames = names;
    out.headersEnc = names.length ? encryptSecret(JSON.stringify(headers), config.encryption.current).ciphertext : null;
  }
  if (body !== undefined)
    out.bodyEnc = body === null ? null : encryptSecret(body, config.encryption.current).ciphertext;
  if (headers !== undefined && body !== undefined) out.encKeyId = null;
  return out;
}

/** A heartbeat is expected on `intervalSeconds` or on a cron `schedule`: one body sets one of them (both named). */
export function intervalOrScheduleIssues(input: Record<string, unknown>): Issue[] {
  if (input.intervalSeconds === undefined || input.schedule === undefined || input.schedule === null) return [];
  const message = 'give either intervalSeconds or schedule, not both';
  return [
    { path: 'intervalSeconds', message },
    { path: 'schedule', message },
  ];
}
