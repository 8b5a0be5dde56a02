import { ConflictError, encryptSecret, type Keyring, type PrismaClient } from '@statusvane/shared';
import { changesBetween, recordAuditEvent } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { isUniqueViolation } from '../records.js';
import type { CreateSecretInput } from './secret-input.js';
import { secretRecordSelect, toSecretRecord, type SecretRecord } from './secret-record.js';

/** POST /secrets (managers) -> 201: the value sealed with the keyring, never shown again; a name in use is 409. */
export async function createSecret(
  deps: { prisma: PrismaClient; keyring: Keyring },
  { ctx, input }: { ctx: ServiceContext; input: CreateSecretInput },
): Promise<SecretRecord> {
  assertCan(ctx.role, 'secrets:manage');
  try {
    return await deps.prisma.$transaction(async (tx) => {
      const row = await tx.workspaceSecret.create({
        data: {
          workspaceId: ctx.workspace.id,
          name: input.name,
          valueEnc: encryptSecret(input.value, deps.keyring.current).ciphertext,
          allowedHosts: [...new Set(input.allowedHosts)],
        },
        select: secretRecordSelect,
      });
      const record = toSecretRecord(row, []);
      await recordAuditEvent(tx, ctx, {
        resourceType: 'secret',
        resourceId: row.id,
        action: 'created',
        changes: changesBetween(null, record, { value: [false, true] }),
      });
      await ctx.inTransaction?.(tx, record);
      return record;
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new ConflictError(`A secret named ${input.name} already exists`);
    throw err;
  }
}
