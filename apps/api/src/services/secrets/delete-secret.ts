import { ConflictError, type PrismaClient } from '@statusvane/shared';
import { changesBetween, claimVersion, recordAuditEvent } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { findSecret, secretUsers, toSecretRecord } from './secret-record.js';

/**
 * DELETE /secrets/{name} (managers) -> 204; 409 with `details.monitors` while a monitor names it. Judged under the
 * secret's row lock: a monitor write that names it takes the same lock (FOR SHARE) in its transaction, so a monitor
 * can never come to name a secret deleted meanwhile.
 */
export async function deleteSecret(
  deps: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: { name: string } },
): Promise<void> {
  assertCan(ctx.role, 'secrets:manage');
  const found = await findSecret(deps.prisma, ctx.workspace.id, input.name);
  await deps.prisma.$transaction(async (tx) => {
    await claimVersion(tx, ctx, 'secret', found.id);
    const monitors = (await secretUsers(tx, ctx.workspace.id, [found.name])).get(found.name) ?? [];
    if (monitors.length)
      throw new ConflictError(`The secret ${found.name} is used by ${monitors.length} monitor(s): change them first`, {
        monitors,
      });
    await tx.workspaceSecret.delete({ where: { id: found.id } });
    await recordAuditEvent(tx, ctx, {
      resourceType: 'secret',
      resourceId: found.id,
      action: 'deleted',
      changes: changesBetween(toSecretRecord(found, []), null, { value: [true, false] }),
    });
  });
}
