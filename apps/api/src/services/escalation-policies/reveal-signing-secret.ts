import { ConflictError, type Config, type PrismaClient } from '@statusvane/shared';
import { recordAuditEvent } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { toSigningSecretRecord, type SigningSecretRecord } from './signing-secret-record.js';

/**
 * POST /escalation-policies/signing-secret/reveal (managers): the current escalation webhook signing secret, shown
 * once per generation (the first reveal marks it shown, atomically: two at once show it once). Later: 409, rotate
 * for a new one (or read it with the admin CLI, which holds the deployment's key). Audited as
 * `workspace.signing_secret_revealed`, never with the secret.
 */
export async function revealSigningSecret(
  deps: { prisma: PrismaClient; config: Pick<Config, 'encryption'> },
  { ctx }: { ctx: ServiceContext },
): Promise<SigningSecretRecord> {
  assertCan(ctx.role, 'escalationPolicies:manage');
  return deps.prisma.$transaction(async (tx) => {
    const [shown] = await tx.$queryRaw<
      Array<{ id: string; signingSecretGeneration: number; signingSecretRotatedAt: Date | null }>
    >`UPDATE workspaces SET "signingSecretRevealedAt" = ${ctx.now}
       WHERE id = ${ctx.workspace.id}::uuid AND "signingSecretRevealedAt" IS NULL
       RETURNING id, "signingSecretGeneration", "signingSecretRotatedAt"`;
    if (!shown) {
      const ws = await tx.workspace.findUniqueOrThrow({
        where: { id: ctx.workspace.id },
        select: { signingSecretRevealedAt: true },
      });
      throw new ConflictError(
        `The signing secret was shown on ${ws.signingSecretRevealedAt!.toISOString()} and is shown once: rotate it ` +
          '(POST /escalation-policies/signing-secret/rotate) for a new one',
      );
    }
    await recordAuditEvent(tx, ctx, {
      resourceType: 'workspace',
      resourceId: ctx.workspace.id,
      action: 'signing_secret_revealed',
    });
    return toSigningSecretRecord(deps.config.encryption.current.key, shown);
  });
}
