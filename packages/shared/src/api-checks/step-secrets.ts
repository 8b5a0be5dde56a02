import { decryptSecret, encryptSecret, type Keyring } from '../crypto/secrets.js';
import type { ApiStepInput, StoredApiStep } from '../schemas/api-steps.js';

/**
 * An api monitor's steps are stored in two parts: the public part (`monitors.steps`, StoredApiStep: what records show,
 * headers by name and a body by presence) and the write-only part (`monitors.stepSecretsEnc`, one `{ headers?, body? }`
 * per step, sealed with the keyring like an http monitor's headers and body). One way to split and join them for the
 * API, config-as-code and the worker.
 */
export interface StepSecrets {
  headers?: Record<string, string>;
  body?: string;
}

/** The two parts of `steps`; `stepSecretsEnc` null when no step has headers or a body. */
export function sealSteps(
  steps: readonly ApiStepInput[],
  key: Keyring['current'],
): { steps: StoredApiStep[]; stepSecretsEnc: string | null } {
  const stored = steps.map(({ headers, body, ...rest }) => ({
    ...rest,
    headerNames: Object.keys(headers ?? {}),
    hasBody: body !== undefined,
  }));
  const secrets: StepSecrets[] = steps.map((s) => ({
    ...(s.headers && Object.keys(s.headers).length ? { headers: s.headers } : {}),
    ...(s.body !== undefined ? { body: s.body } : {}),
  }));
  const any = secrets.some((s) => s.headers || s.body !== undefined);
  return { steps: stored, stepSecretsEnc: any ? encryptSecret(JSON.stringify(secrets), key).ciphertext : null };
}

/** The write-only parts, decrypted (throws when no configured key opens them, or the value is damaged). */
export function openStepSecrets(stepSecretsEnc: string | null, keyring: Keyring): StepSecrets[] {
  if (stepSecretsEnc === null) return [];
  const parsed = JSON.parse(decryptSecret(stepSecretsEnc, null, keyring)) as unknown;
  if (!Array.isArray(parsed)) throw new Error('not a list of step secrets');
  return parsed as StepSecrets[];
}

/** The steps whole again (the stored part with its secrets), as a write takes them. */
export function joinSteps(stored: readonly StoredApiStep[], secrets: readonly StepSecrets[]): ApiStepInput[] {
  return stored.map(({ headerNames: _names, hasBody: _hasBody, ...rest }, i) => ({
    ...rest,
    ...(secrets[i]?.headers ? { headers: secrets[i].headers } : {}),
    ...(secrets[i]?.body !== undefined ? { body: secrets[i].body } : {}),
  }));
}
