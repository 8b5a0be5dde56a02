import type { Config, PrismaClient } from '@statusvane/shared';
import { recordAuditEvent } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { toSigningSecretRecord, type SigningSecretRecord } from './signing-secret-record.js';

/**
 * POST /escalation-policies/signing-secret/rotate (managers): a new escalation webhook signing secret (the next
 * generation), shown in this answer only. Every page and notice sent from the commit on is signed with it, never with
 * the old one, whichever process sends it (the deliverer reads the generation on every attempt): a receiver moves
 * over by accepting both secrets for a while (docs/decisions.md). Audited as `workspace.signing_secret_rotated`.
 */
export async function rotateSigningSecret(
  deps: { prisma: PrismaClient; config: Pick<Config, 'encryption'> },
  { ctx }: { ctx: ServiceContext },
): Promise<SigningSecretRecord> {
  assertCan(ctx.role, 'escalationPolicies:manage');
  return deps.prisma.$transaction(async (tx) => {
    const ws = await tx.workspace.update({
      where: { id: ctx.workspace.id },
      // Shown in this answer: a reveal of this generation is not needed, nor allowed.
      data: {
        signingSecretGeneration: { increment: 1 },
        signingSecretRotatedAt: ctx.now,
        signingSecretRevealedAt: ctx.now,
      },
      select: { id: true, signingSecretGeneration: true, signingSecretRotatedAt: true },
    });
    await recordAuditEvent(tx, ctx, {
      resourceType: 'workspace',
      resourceId: ctx.workspace.id,
      action: 'signing_secret_rotated',
      changes: { generation: { from: ws.signingSecretGeneration - 1, to: ws.signingSecretGeneration } },
    });
    const record = toSigningSecretRecord(deps.config.encryption.current.key, ws);
    await ctx.inTransaction?.(tx, record, { ...record, secret: null });
    return record;
  });
}
