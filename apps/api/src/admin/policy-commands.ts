import { z } from 'zod';
import {
  AppError,
  NotFoundError,
  parseOrThrow,
  ValidationError,
  type EncryptionKey,
  type Issue,
  type PrismaClient,
  type SsrfGuard,
} from '@statusvane/shared';
import { changesBetween, claimVersion, cliWriteContext, recordUpdate } from '../services/audit/record-write.js';
import { createEscalationPolicy } from '../services/escalation-policies/create-escalation-policy.js';
import { createEscalationPolicySchema } from '../services/escalation-policies/policy-input.js';
import {
  escalationPolicySelect,
  toEscalationPolicyRecord,
  type EscalationPolicyRow,
} from '../services/escalation-policies/policy-record.js';
import { toSigningSecretRecord } from '../services/escalation-policies/signing-secret-record.js';
import { recordMonitorEvents } from '../services/monitors/monitor-events.js';
import { findWorkspace } from './admin-commands.js';
import { failWith } from '../services/validation.js';
import { cliContext } from './cli-context.js';

const id = z.uuid();
const selector = z.string().min(1).max(100);

function parseJsonOption(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new ValidationError('Invalid arguments: json', [
      { path: 'json', message: `is not valid JSON (${(err as Error).message})` },
    ]);
  }
}

/** The service's issues, named by the option they came in: `json.steps[0].targets[1].target`. */
function underJsonOption(err: unknown): never {
  if (err instanceof ValidationError) {
    const issues = ((err.details?.issues ?? []) as Issue[]).map((i) => ({ ...i, path: `json.${i.path}` }));
    failWith('policy', issues);
  }
  throw err;
}

/**
 * policy create --workspace --json [--default]: the body of `POST /escalation-policies` (`--default` is its
 * `isDefault`), through the same service. Targets are stored encrypted with `deps.encryption` (the deployment's
 * current ENCRYPTION_KEY).
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
    z.object({ json: createEscalationPolicySchema }),
    { json: parseJsonOption(args.json) },
    'policy',
  );
  const ws = await findWorkspace(prisma, args.workspace);
  const record = await createEscalationPolicy(
    { prisma, guard: deps.guard, config: { encryption: { current: deps.encryption, old: [] } } },
    { ctx: cliContext(ws), input: { ...input, isDefault: input.isDefault || args.default === true } },
  ).catch(underJsonOption);
  return { workspaceId: ws.id, ...record };
}

/**
 * policy assign --monitor --policy: the monitor's own policy (it wins over the workspace default). `--policy none`
 * removes it. Policy and monitor must be in the same workspace.
 */
export async function assignPolicy(
  prisma: PrismaClient,
  raw: unknown,
  config: { publicBaseUrl: string; checkRegions: readonly string[] },
) {
  const args = parseOrThrow(
    z.object({ monitor: id, policy: z.union([id, z.literal('none')]) }).strict(),
    raw,
    'arguments',
  );
  const monitor = await prisma.monitor.findUnique({
    where: { id: args.monitor },
    select: { id: true, name: true, workspaceId: true },
  });
  if (!monitor) throw new NotFoundError('monitor', args.monitor);
  let policy: EscalationPolicyRow | null = null;
  if (args.policy !== 'none') {
    policy = await prisma.escalationPolicy.findFirst({
      where: { id: args.policy, archivedAt: null },
      select: escalationPolicySelect,
    });
    if (!policy) throw new NotFoundError('policy', args.policy);
    if (policy.workspaceId !== monitor.workspaceId) {
      throw new AppError('conflict', `policy ${policy.id} belongs to another workspace than monitor ${monitor.id}`);
    }
  }
  const ctx = cliWriteContext(monitor.workspaceId);
  await prisma.$transaction(async (tx) => {
    await claimVersion(tx, ctx, 'monitor', monitor.id);
    // Read under the lock claimVersion took: a concurrent change is in it, or waits.
    const before = await tx.monitor.findUniqueOrThrow({
      where: { id: monitor.id },
      select: { escalationPolicyId: true },
    });
    const after = await tx.monitor.update({
      where: { id: monitor.id },
      data: { escalationPolicyId: policy?.id ?? null },
      select: { escalationPolicyId: true },
    });
    const version = await recordUpdate(tx, ctx, {
      resourceType: 'monitor',
      resourceId: monitor.id,
      changes: changesBetween(before, after),
    });
    // The policy it already had changes nothing: no `monitor.updated`, as a PATCH that changes nothing.
    if (version !== undefined) await recordMonitorEvents(tx, { prisma, config }, ctx, 'monitor.updated', [monitor.id]);
  });
  return {
    monitorId: monitor.id,
    monitorName: monitor.name,
    workspaceId: monitor.workspaceId,
    policy: policy ? { workspaceId: policy.workspaceId, ...toEscalationPolicyRecord(policy) } : null,
  };
}

/**
 * policy signing-secret --workspace: the secret webhook receivers verify `Statusvane-Signature` with, as pages are
 * signed now. Derived from the deployment's encryption key and the workspace's generation (docs/escalation.md), so it
 * changes when ENCRYPTION_KEY rotates and with POST /escalation-policies/signing-secret/rotate. The operator holds
 * the key, so this prints it whenever asked (the API shows each generation once).
 */
export async function policySigningSecret(prisma: PrismaClient, raw: unknown, deps: { encryptionKey: Buffer }) {
  const args = parseOrThrow(z.object({ workspace: selector }).strict(), raw, 'arguments');
  const ws = await findWorkspace(prisma, args.workspace);
  const { secret, generation, algorithm, signatureHeader, signedPayload } = toSigningSecretRecord(
    deps.encryptionKey,
    ws,
  );
  return { workspaceId: ws.id, workspace: ws.slug, algorithm, signatureHeader, signedPayload, generation, secret };
}
