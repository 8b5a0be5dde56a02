import { encryptSecret, ValidationError, type Config, type Issue, type SsrfGuard } from '@statusvane/shared';

/**
 * Write-time SSRF check. A blocked address is a 400 on `target`. A name that does not resolve today is accepted:
 * it cannot point inward now, and the worker checks every connection again at connect time.
 */
export async function assertTargetAllowed(guard: SsrfGuard, type: 'http' | 'tcp', target: string): Promise<void> {
  const result = type === 'http' ? await guard.checkUrl(target) : await guard.checkHostPort(target);
  if (result.ok || result.code === 'dns') return;
  throw new ValidationError('Invalid request: target', [
    { path: 'target', message: result.code === 'blocked' ? `target is not allowed: ${result.reason}` : result.reason },
  ]);
}

interface CrossFieldState {
  method: string;
  hasBody: boolean;
  degradedAfterMs: number | null;
  latencyThresholdMs: number | null;
}

/** Rules that span fields, checked on the monitor as it would be after the write. */
export function crossFieldIssues(s: CrossFieldState): Issue[] {
  const issues: Issue[] = [];
  if (s.hasBody && (s.method === 'GET' || s.method === 'HEAD')) {
    issues.push({ path: 'body', message: `a request body needs method POST (method is ${s.method})` });
  }
  if (s.degradedAfterMs !== null && s.latencyThresholdMs !== null && s.degradedAfterMs >= s.latencyThresholdMs) {
    issues.push({ path: 'degradedAfterMs', message: 'must be below latencyThresholdMs (slower than that fails the check)' });
  }
  return issues;
}

/**
 * Headers and body are stored only as AES-256-GCM ciphertext, each naming the key that sealed it (`v1:<keyId>:...`),
 * so replacing one of them under a new key leaves the other readable under its old one. The record shows the header
 * names. `encKeyId` is left alone: it only serves values written before they named their key; once neither secret
 * is such a value it is cleared.
 */
export function sealSecrets(config: Config, headers: Record<string, string> | undefined, body: string | null | undefined) {
  const out: { headersEnc?: string | null; headerNames?: string[]; bodyEnc?: string | null; encKeyId?: null } = {};
  if (headers !== undefined) {
    const names = Object.keys(headers);
    out.headerNames = names;
    out.headersEnc = names.length ? encryptSecret(JSON.stringify(headers), config.encryption.current).ciphertext : null;
  }
  if (body !== undefined) out.bodyEnc = body === null ? null : encryptSecret(body, config.encryption.current).ciphertext;
  if (headers !== undefined && body !== undefined) out.encKeyId = null;
  return out;
}
