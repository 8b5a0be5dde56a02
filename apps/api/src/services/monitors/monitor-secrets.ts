import {
  joinSteps,
  Prisma,
  sqlRows,
  type SqlTransaction,
  openStepSecrets,
  REDACTED,
  secretNamesIn,
  stepTexts,
  tryDecryptSecret,
  type ApiStepInput,
  type Issue,
  type Keyring,
  type PrismaClient,
  type StoredApiStep,
} from '@statusvane/shared';
import { failWith } from '../validation.js';

/**
 * The workspace secrets a monitor names (`{{secrets.NAME}}`): an api monitor's in its steps (url, header values,
 * bodies), an http monitor's in its headers and body. Stored as `secretRefs`, the list GET /secrets shows as `usedBy`,
 * DELETE /secrets judges and the worker loads.
 */
export function secretRefsOf(m: {
  steps?: readonly ApiStepInput[] | null;
  headers?: Record<string, string> | null;
  body?: string | null;
}): string[] {
  // Only text can name a secret: a config view may hold an unreadable stored value in its place.
  const texts = m.steps ? stepTexts(m.steps) : [...Object.values(m.headers ?? {}), m.body];
  return secretNamesIn(texts.filter((t): t is string => typeof t === 'string'));
}

/** The names of `names` that are not secrets of the workspace, as issues at `path`. */
export async function unknownSecretIssues(
  db: Pick<PrismaClient, 'workspaceSecret'>,
  workspaceId: string,
  names: readonly string[],
  path: string,
): Promise<Issue[]> {
  if (names.length === 0) return [];
  const found = await db.workspaceSecret.findMany({
    where: { workspaceId, name: { in: [...names] } },
    select: { name: true },
  });
  const known = new Set(found.map((s) => s.name));
  return names
    .filter((n) => !known.has(n))
    .map((n) => ({ path, message: `{{secrets.${n}}}: the workspace has no secret ${n} (POST /secrets first)` }));
}

/**
 * In a monitor write's transaction: the secrets it names, locked FOR SHARE until the commit, so that a secret's
 * delete (which locks its row FOR UPDATE before it looks for users) either sees this monitor or runs first and makes
 * this write fail here. A name deleted since the checks is a 400.
 */
export async function lockSecrets(tx: SqlTransaction, workspaceId: string, names: readonly string[]) {
  if (names.length === 0) return;
  const rows = await sqlRows<{ name: string }>(
    tx,
    Prisma.sql`
    SELECT name FROM workspace_secrets WHERE "workspaceId" = ${workspaceId}::uuid AND name = ANY(${[...names]}::text[])
       FOR SHARE`,
  );
  const known = new Set(rows.map((r) => r.name));
  const missing = names.filter((n) => !known.has(n));
  if (missing.length)
    failWith(
      'monitor',
      missing.map((n) => ({ path: 'steps', message: `{{secrets.${n}}}: the secret was deleted meanwhile` })),
    );
}

/** An api monitor's stored steps, whole (secrets decrypted in memory), or null when no configured key opens them. */
export function openStoredSteps(
  row: { steps: unknown; stepSecretsEnc: string | null },
  keyring: Keyring,
): ApiStepInput[] | null {
  const stored = (row.steps ?? []) as StoredApiStep[];
  try {
    return joinSteps(stored, openStepSecrets(row.stepSecretsEnc, keyring));
  } catch {
    return null;
  }
}

/**
 * Steps sent to replace the stored ones, where a header value or a body `"<redacted>"` (what a client that never saw
 * them sends back) stands for that of the stored step of the same name. One that has nothing stored behind it, or
 * whose stored secrets no configured key opens (`stored` null), is an issue at its path. Config documents also say
 * `"<unreadable>"` (what their export shows for secrets it cannot decrypt): `placeholders` names every such word.
 */
export function keepStoredStepSecrets(
  sent: readonly ApiStepInput[],
  stored: readonly ApiStepInput[] | null,
  at = 'steps',
  placeholders: readonly string[] = [REDACTED],
): { steps: ApiStepInput[]; issues: Issue[] } {
  const issues: Issue[] = [];
  const byName = new Map((stored ?? []).map((s) => [s.name, s]));
  const steps = sent.map((step, i) => {
    const before = byName.get(step.name);
    const kept = { ...step };
    const cannot = (where: string, said: string) =>
      issues.push({
        path: `${at}[${i}].${where}`,
        message:
          stored === null
            ? `is "${said}" but the stored step secrets cannot be decrypted: give the value again`
            : `is "${said}" but the stored step "${step.name}" has no such value`,
      });
    if (step.headers) {
      const storedHeaders = new Map(Object.entries(before?.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
      kept.headers = Object.fromEntries(
        Object.entries(step.headers).map(([name, value]) => {
          if (!placeholders.includes(value)) return [name, value];
          const was = storedHeaders.get(name.toLowerCase());
          if (was === undefined) cannot(`headers.${name}`, value);
          return [name, was ?? value];
        }),
      );
    }
    if (step.body !== undefined && placeholders.includes(step.body)) {
      if (before?.body === undefined) cannot('body', step.body);
      else kept.body = before.body;
    }
    return kept;
  });
  return { steps, issues };
}

/** Whether any header value or body of the steps is `"<redacted>"` (or another placeholder): the stored ones are read. */
export const mentionsRedacted = (steps: readonly ApiStepInput[], placeholders: readonly string[] = [REDACTED]) =>
  steps.some(
    (s) =>
      (s.body !== undefined && placeholders.includes(s.body)) ||
      Object.values(s.headers ?? {}).some((v) => placeholders.includes(v)),
  );

/**
 * An http monitor's headers and body after a write that sends one or both, the other read from the stored ciphertext:
 * what its `secretRefs` are computed from. Null when the one not sent cannot be decrypted (its refs are then kept).
 */
export function httpSecretsAfter(
  sent: { headers?: Record<string, string> | undefined; body?: string | null | undefined },
  stored: { headersEnc: string | null; bodyEnc: string | null; encKeyId: string | null },
  keyring: Keyring,
): { headers: Record<string, string>; body: string | null } | null {
  let headers = sent.headers;
  if (headers === undefined) {
    const clear = stored.headersEnc ? tryDecryptSecret(stored.headersEnc, stored.encKeyId, keyring) : '{}';
    if (clear === null) return null;
    headers = JSON.parse(clear) as Record<string, string>;
  }
  let body = sent.body;
  if (body === undefined) {
    body = stored.bodyEnc ? tryDecryptSecret(stored.bodyEnc, stored.encKeyId, keyring) : null;
    if (stored.bodyEnc && body === null) return null;
  }
  return { headers, body };
}
