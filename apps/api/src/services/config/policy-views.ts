import {
  openTarget,
  secretKeyId,
  targetFromSecret,
  type Config,
  type EscalationChannel,
  type EscalationTargetInput,
  type Issue,
  type Prisma,
} from '@statusvane/shared';
import type { CreateEscalationPolicyInput } from '../escalation-policies/policy-input.js';
import { REDACTED } from '../audit/record-write.js';
import type { RedactedTargets, View } from './config-schema.js';
import { isUnreadable, UNREADABLE, UnreadableSecret, unreadableIssue } from './unreadable.js';

/** The fields of a target that hold its secret (an email address is shown in full, a Telegram chat id too). */
const SECRET_FIELDS: Record<string, string | undefined> = {
  webhook: 'target',
  slack: 'target',
  teams: 'target',
  discord: 'target',
  ntfy: 'target',
  pagerduty: 'routingKey',
  opsgenie: 'apiKey',
  telegram: 'botToken',
};

/**
 * What stands in for `"<redacted>"` while the document is judged by the policy schema (each passes its field's
 * format); the stored value replaces it before anything is compared or written. `"<unreadable>"` (what GET /config
 * shows for a target it cannot decrypt) may stand in any field the target's ciphertext holds.
 */
const URL_PLACEHOLDER = { target: 'https://redacted.invalid/' };
const PLACEHOLDERS: Record<EscalationChannel, Record<string, string>> = {
  webhook: URL_PLACEHOLDER,
  slack: URL_PLACEHOLDER,
  teams: URL_PLACEHOLDER,
  discord: URL_PLACEHOLDER,
  ntfy: URL_PLACEHOLDER,
  email: { target: 'redacted@redacted.invalid' },
  pagerduty: { routingKey: 'REDACTEDREDACTEDREDACTEDREDACTED' },
  opsgenie: { apiKey: 'REDACTED' },
  telegram: { botToken: '0:REDACTEDREDACTEDREDACTED', chatId: '0' },
  // Ids, never secrets: nothing to redact.
  schedule: {},
  user: {},
};

/** Swaps each `"<redacted>"` or `"<unreadable>"` secret of a raw policy body for a placeholder of the right format, noting where. */
export function withPlaceholders(body: Record<string, unknown>): {
  body: Record<string, unknown>;
  redacted: RedactedTargets;
} {
  const redacted: RedactedTargets = new Map();
  if (!Array.isArray(body.steps)) return { body, redacted };
  const steps = body.steps.map((step: unknown, i) => {
    if (!step || typeof step !== 'object' || !Array.isArray((step as { targets?: unknown }).targets)) return step;
    const targets = (step as { targets: unknown[] }).targets.map((t, j) => {
      if (!t || typeof t !== 'object') return t;
      const target = { ...(t as Record<string, unknown>) };
      const placeholders = PLACEHOLDERS[target.channel as EscalationChannel] as Record<string, string> | undefined;
      if (!placeholders) return t;
      const secret = SECRET_FIELDS[String(target.channel)];
      const swapped = Object.keys(placeholders).filter(
        (f) => target[f] === UNREADABLE || (f === secret && target[f] === REDACTED),
      );
      if (swapped.length === 0) return t;
      const said = swapped.some((f) => target[f] === UNREADABLE) ? UNREADABLE : REDACTED;
      for (const f of swapped) target[f] = placeholders[f];
      redacted.set(`steps[${i}].targets[${j}]`, said);
      return target;
    });
    return { ...(step as object), targets };
  });
  return { body: { ...body, steps }, redacted };
}

export const configPolicySelect = {
  id: true,
  ref: true,
  name: true,
  repeatCount: true,
  silent: true,
  runbook: true,
  workspace: { select: { defaultEscalationPolicyId: true } },
  steps: {
    orderBy: { position: 'asc' },
    select: {
      delayMinutes: true,
      minImpact: true,
      targets: {
        orderBy: { position: 'asc' },
        select: { channel: true, targetEnc: true, encKeyId: true, legacyTarget: true },
      },
    },
  },
} satisfies Prisma.EscalationPolicySelect;
export type ConfigPolicyRow = Prisma.EscalationPolicyGetPayload<{ select: typeof configPolicySelect }>;

/**
 * A stored target as the document sees it, decrypted (in memory only); one no configured key opens has an
 * UnreadableSecret in each field its ciphertext holds (shown `"<unreadable>"`), so that reading never fails.
 */
function storedTarget(t: ConfigPolicyRow['steps'][number]['targets'][number], keyring: Config['encryption']): View {
  try {
    return targetFromSecret(t.channel, openTarget(t, keyring));
  } catch {
    const unreadable = new UnreadableSecret(t.targetEnc === null ? null : secretKeyId(t.targetEnc, t.encKeyId));
    return {
      channel: t.channel,
      ...Object.fromEntries(Object.keys(PLACEHOLDERS[t.channel]).map((f) => [f, unreadable])),
    };
  }
}

/** A stored policy as the document sees it, targets decrypted (in memory only, for comparison). */
export function storedPolicyView(row: ConfigPolicyRow, keyring: Config['encryption']): View {
  return {
    name: row.name,
    repeatCount: row.repeatCount,
    silent: row.silent,
    runbook: row.runbook,
    steps: row.steps.map((s) => ({
      delayMinutes: s.delayMinutes,
      minImpact: s.minImpact,
      targets: s.targets.map((t) => storedTarget(t, keyring)),
    })),
    isDefault: row.workspace.defaultEscalationPolicyId === row.id,
  };
}

/** The policy the document asks for; a `"<redacted>"` target is the stored one at the same place, same channel. */
export function desiredPolicyView(
  index: number,
  input: CreateEscalationPolicyInput,
  redacted: RedactedTargets,
  stored: View | null,
): { view: View; issues: Issue[] } {
  const issues: Issue[] = [];
  const storedSteps = (stored?.steps ?? []) as Array<{ targets: EscalationTargetInput[] }>;
  const steps = input.steps.map((s, i) => ({
    delayMinutes: s.delayMinutes,
    minImpact: s.minImpact,
    targets: s.targets.map((t, j) => {
      const said = redacted.get(`steps[${i}].targets[${j}]`);
      if (said === undefined) return t;
      const kept = storedSteps[i]?.targets[j];
      const unreadable = (Object.values(kept ?? {}) as unknown[]).find(isUnreadable);
      const path = `escalationPolicies[${index}].steps[${i}].targets[${j}]`;
      if (kept?.channel === t.channel && unreadable) {
        issues.push(unreadableIssue(path, said, `${t.channel} target`, unreadable));
        return t;
      }
      if (kept?.channel === t.channel) return kept;
      issues.push({
        path,
        message: `is "${said}" but the policy has no stored ${t.channel} target at this place`,
      });
      return t;
    }),
  }));
  const view: View = {
    name: input.name,
    repeatCount: input.repeatCount,
    silent: input.silent,
    runbook: input.runbook,
    steps,
    isDefault: input.isDefault,
  };
  return { view, issues };
}

/** Steps as plans and GET /config show them: every secret field `"<redacted>"`. */
export function shownSteps(steps: unknown): unknown {
  if (!Array.isArray(steps)) return steps;
  return (steps as Array<{ targets: EscalationTargetInput[] }>).map((s) => ({
    ...s,
    targets: s.targets.map((t) => {
      const field = SECRET_FIELDS[t.channel];
      const shown: Record<string, unknown> = field ? { ...t, [field]: REDACTED } : { ...t };
      for (const [f, value] of Object.entries(t)) if (isUnreadable(value)) shown[f] = UNREADABLE;
      return shown;
    }),
  }));
}

/** The document entry of a stored policy: defaults left out, secrets redacted. */
export function exportedPolicy(ref: string, view: View): View {
  const entry: View = { ref, name: view.name };
  if (view.repeatCount !== 0) entry.repeatCount = view.repeatCount;
  if (view.silent) entry.silent = true;
  if (view.runbook !== '') entry.runbook = view.runbook;
  if (view.isDefault) entry.isDefault = true;
  entry.steps = (shownSteps(view.steps) as Array<{ minImpact: string }>).map(({ minImpact, ...s }) =>
    minImpact === 'none' ? s : { ...s, minImpact },
  );
  return entry;
}
