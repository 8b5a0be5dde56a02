import { z } from 'zod';
import {
  AppError,
  ESCALATION_LIMITS as L,
  IMPACTS,
  NotFoundError,
  parseOrThrow,
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  ValidationError,
  escalationTargetSchema,
  isUrlChannel,
  sealTarget,
  webhookSigningSecret,
  type EncryptionKey,
  type Issue,
  type PrismaClient,
  type SsrfGuard,
} from '@statusvane/shared';
import {
  changesBetween,
  claimVersion,
  cliWriteContext,
  recordAuditEvent,
  recordUpdate,
} from '../audit/record-write.js';
import { findWorkspace } from './admin-commands.js';

const id = z.uuid();
const selector = z.string().min(1).max(100);
const stepSchema = z
  .object({
    delayMinutes: z.number().int().min(0).max(L.delayMinutesMax),
    minImpact: z.enum(IMPACTS).default('none'),
    targets: z.array(escalationTargetSchema).min(1).max(L.targetsMax),
  })
  .strict();

/**
 * The `--json` of `policy create`. Steps are in ladder order and their delays (minutes from the incident's start)
 * may not decrease: the last step is the one that ends a cycle.
 */
export const policyInputSchema = z
  .object({
    name: z.string().trim().min(1).max(L.nameMax),
    repeatCount: z.number().int().min(0).max(L.repeatCountMax).default(0),
    silent: z.boolean().default(false),
    runbook: z.string().max(L.runbookMax).default(''),
    steps: z.array(stepSchema).min(1).max(L.stepsMax),
  })
  .strict()
  .superRefine((p, ctx) => {
    for (let i = 1; i < p.steps.length; i++) {
      if (p.steps[i]!.delayMinutes < p.steps[i - 1]!.delayMinutes) {
        ctx.addIssue({
          code: 'custom',
          path: ['steps', i, 'delayMinutes'],
          message: 'must be at least the previous step delay (steps are in ladder order)',
        });
      }
    }
  });
export type PolicyInput = z.output<typeof policyInputSchema>;

const policyRecordSelect = {
  id: true,
  workspaceId: true,
  name: true,
  repeatCount: true,
  silent: true,
  runbook: true,
  createdAt: true,
  defaultFor: { select: { id: true } },
  steps: {
    orderBy: { position: 'asc' },
    select: {
      id: true,
      position: true,
      delayMinutes: true,
      minImpact: true,
      targets: { orderBy: { position: 'asc' }, select: { id: true, channel: true, display: true } },
    },
  },
} as const;

type PolicyRow = NonNullable<Awaited<ReturnType<typeof readPolicy>>>;

function readPolicy(prisma: Pick<PrismaClient, 'escalationPolicy'>, policyId: string) {
  return prisma.escalationPolicy.findUnique({ where: { id: policyId }, select: policyRecordSelect });
}

/**
 * The admin's view of a policy. Targets are stored encrypted and shown as their display form only (URLs as
 * `scheme://host/…`, keys by their last four characters, email addresses in full), as the spec's policy records
 * show them: the output of `policy create` ends up in terminals, logs and CI output, and never carries a secret.
 */
function toPolicyRecord(p: PolicyRow) {
  return {
    id: p.id,
    workspaceId: p.workspaceId,
    name: p.name,
    repeatCount: p.repeatCount,
    silent: p.silent,
    runbook: p.runbook,
    isDefault: p.defaultFor.some((w) => w.id === p.workspaceId),
    createdAt: p.createdAt.toISOString(),
    steps: p.steps.map((s) => ({
      id: s.id,
      position: s.position,
      delayMinutes: s.delayMinutes,
      minImpact: s.minImpact,
      targets: s.targets.map((t) => ({ id: t.id, channel: t.channel, target: t.display })),
    })),
  };
}

function parseJsonOption(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new ValidationError('Invalid arguments: json', [
      { path: 'json', message: `is not valid JSON (${(err as Error).message})` },
    ]);
  }
}

/**
 * Write-time SSRF check of every URL target: webhook, Slack, Teams, Discord, ntfy (the worker checks each connection
 * again); PagerDuty, Opsgenie and Telegram targets go to the providers' configured URLs. As for monitor
 * targets, a name that does not resolve today is accepted; one that resolves inward is refused.
 */
async function targetIssues(guard: SsrfGuard, input: PolicyInput): Promise<Issue[]> {
  const checks = input.steps.flatMap((s, i) =>
    s.targets.map(async (t, j): Promise<Issue | null> => {
      if (!('target' in t) || !isUrlChannel(t.channel)) return null;
      const result = await guard.checkUrl(t.target);
      if (result.ok || result.code === 'dns') return null;
      const message = result.code === 'blocked' ? `target is not allowed: ${result.reason}` : result.reason;
      return { path: `json.steps[${i}].targets[${j}].target`, message };
    }),
  );
  return (await Promise.all(checks)).filter((i): i is Issue => i !== null);
}

/**
 * policy create --workspace --json [--default]: a policy with its ordered steps and targets, in one transaction.
 * Targets are stored encrypted with `deps.encryption` (the deployment's current ENCRYPTION_KEY).
 */
export async function createPolicy(
  prisma: PrismaClient,
  raw: unknown,
  deps: { guard: SsrfGuard; encryption: EncryptionKey },
) {
  const args = parseOrThrow(
    z.object({ workspace: selector, json: z.string().max(200_000), default: z.boolean().optional() }).strict(),
    raw,
    'arguments',
  );
  // Wrapped so every issue names the option: `json.steps[0].targets[1].target`.
  const { json: input } = parseOrThrow(
    z.object({ json: policyInputSchema }),
    { json: parseJsonOption(args.json) },
    'policy',
  );
  const ws = await findWorkspace(prisma, args.workspace);
  const issues = await targetIssues(deps.guard, input);
  if (issues.length) throw new ValidationError(`Invalid policy: ${issues.map((i) => i.path).join(', ')}`, issues);

  const policyId = await prisma.$transaction(async (tx) => {
    const policy = await tx.escalationPolicy.create({
      data: {
        workspaceId: ws.id,
        name: input.name,
        repeatCount: input.repeatCount,
        silent: input.silent,
        runbook: input.runbook,
        steps: {
          create: input.steps.map((s, position) => ({
            position,
            delayMinutes: s.delayMinutes,
            minImpact: s.minImpact,
            targets: {
              create: s.targets.map((t, tp) => ({
                position: tp,
                channel: t.channel,
                ...sealTarget(t, deps.encryption),
              })),
            },
          })),
        },
      },
      select: { id: true },
    });
    if (args.default)
      await tx.workspace.update({ where: { id: ws.id }, data: { defaultEscalationPolicyId: policy.id } });
    // The record shows targets by `display` only: no secret reaches the event.
    await recordAuditEvent(tx, cliWriteContext(ws.id), {
      resourceType: 'escalation_policy',
      resourceId: policy.id,
      action: 'created',
      changes: changesBetween(null, toPolicyRecord((await readPolicy(tx, policy.id))!)),
    });
    return policy.id;
  });
  return toPolicyRecord((await readPolicy(prisma, policyId))!);
}

/**
 * policy assign --monitor --policy: the monitor's own policy (it wins over the workspace default). `--policy none`
 * removes it. Policy and monitor must be in the same workspace.
 */
export async function assignPolicy(prisma: PrismaClient, raw: unknown) {
  const args = parseOrThrow(
    z.object({ monitor: id, policy: z.union([id, z.literal('none')]) }).strict(),
    raw,
    'arguments',
  );
  const monitor = await prisma.monitor.findUnique({
    where: { id: args.monitor },
    select: { id: true, name: true, workspaceId: true, escalationPolicyId: true },
  });
  if (!monitor) throw new NotFoundError('monitor', args.monitor);
  let policy: PolicyRow | null = null;
  if (args.policy !== 'none') {
    policy = await readPolicy(prisma, args.policy);
    if (!policy) throw new NotFoundError('policy', args.policy);
    if (policy.workspaceId !== monitor.workspaceId) {
      throw new AppError('conflict', `policy ${policy.id} belongs to another workspace than monitor ${monitor.id}`);
    }
  }
  const ctx = cliWriteContext(monitor.workspaceId);
  await prisma.$transaction(async (tx) => {
    await claimVersion(tx, ctx, 'monitor', monitor.id);
    const after = await tx.monitor.update({
      where: { id: monitor.id },
      data: { escalationPolicyId: policy?.id ?? null },
      select: { escalationPolicyId: true },
    });
    await recordUpdate(tx, ctx, {
      resourceType: 'monitor',
      resourceId: monitor.id,
      changes: changesBetween({ escalationPolicyId: monitor.escalationPolicyId }, after),
    });
  });
  return {
    monitorId: monitor.id,
    monitorName: monitor.name,
    workspaceId: monitor.workspaceId,
    policy: policy ? toPolicyRecord(policy) : null,
  };
}

/**
 * policy signing-secret --workspace: the secret webhook receivers verify `X-Statusvane-Signature` with. Derived
 * from the deployment's encryption key (docs/escalation.md), so it changes when ENCRYPTION_KEY rotates.
 */
export async function policySigningSecret(prisma: PrismaClient, raw: unknown, deps: { encryptionKey: Buffer }) {
  const args = parseOrThrow(z.object({ workspace: selector }).strict(), raw, 'arguments');
  const ws = await findWorkspace(prisma, args.workspace);
  return {
    workspaceId: ws.id,
    workspace: ws.slug,
    algorithm: 'HMAC-SHA256',
    signatureHeader: SIGNATURE_HEADER,
    timestampHeader: TIMESTAMP_HEADER,
    signedPayload: '<timestamp>.<raw body>',
    secret: webhookSigningSecret(deps.encryptionKey, ws.id),
  };
}
