import { encryptSecret, tryDecryptSecret, type Keyring, type PrismaClient } from '@statusvane/shared';
import { changesBetween, claimVersion, recordUpdate } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import type { ReplaceSecretInput } from './secret-input.js';
import { findSecret, secretRecordSelect, secretUsers, toSecretRecord, type SecretRecord } from './secret-record.js';

/**
 * PUT /secrets/{name} (managers): a new value and hosts, replacing both (If-Match honoured). The next check of every
 * monitor naming it uses the new value.
 */
export async function updateSecret(
  deps: { prisma: PrismaClient; keyring: Keyring },
  { ctx, input }: { ctx: ServiceContext; input: { name: string; secret: ReplaceSecretInput } },
): Promise<SecretRecord> {
  assertCan(ctx.role, 'secrets:manage');
  const found = await findSecret(deps.prisma, ctx.workspace.id, input.name);
  return deps.prisma.$transaction(async (tx) => {
    await claimVersion(tx, ctx, 'secret', found.id);
    const before = await tx.workspaceSecret.findUniqueOrThrow({
      where: { id: found.id },
      select: { ...secretRecordSelect, valueEnc: true },
    });
    const sameValue = tryDecryptSecret(before.valueEnc, null, deps.keyring) === input.secret.value;
    const after = await tx.workspaceSecret.update({
      where: { id: found.id },
      data: {
        ...(sameValue ? {} : { valueEnc: encryptSecret(input.secret.value, deps.keyring.current).ciphertext }),
        allowedHosts: [...new Set(input.secret.allowedHosts)],
      },
      select: secretRecordSelect,
    });
    const usedBy = (await secretUsers(tx, ctx.workspace.id, [after.name])).get(after.name) ?? [];
    const version = await recordUpdate(tx, ctx, {
      resourceType: 'secret',
      resourceId: found.id,
      changes: changesBetween(
        toSecretRecord(before, usedBy),
        toSecretRecord(after, usedBy),
        sameValue ? {} : { value: [true, true] },
      ),
    });
    return toSecretRecord({ ...after, version: version ?? after.version }, usedBy);
  });
}
