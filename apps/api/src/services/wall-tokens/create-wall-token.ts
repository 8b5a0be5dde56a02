import { hashToken, randomSecret, shownText, type Config, type PrismaClient } from '@statusvane/shared';
import { z } from '../../schemas/zod.js';
import { changesBetween, recordAuditEvent } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import {
  toWallTokenRecord,
  wallPath,
  wallTokenRecordSelect,
  type CreatedWallTokenRecord,
} from './wall-token-record.js';

export const createWallTokenSchema = z
  .object({
    name: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .superRefine(shownText)
      .openapi({ description: 'Where the wall hangs, to recognise the link in the list.' }),
  })
  .strict()
  .openapi('CreateWallTokenInput');
export type CreateWallTokenInput = z.output<typeof createWallTokenSchema>;

/**
 * POST /wall-tokens (managers): a link to the wall view, `<PUBLIC_BASE_URL>/app/wall/<token>`, that shows the
 * workspace's monitors to whoever opens it, without signing in. The token (32 random bytes) is in this answer only;
 * its SHA-256 is stored. A replay with the same Idempotency-Key answers `token` and `url` null.
 */
export async function createWallToken(
  { prisma, config }: { prisma: PrismaClient; config: Pick<Config, 'publicBaseUrl'> },
  { ctx, input }: { ctx: ServiceContext; input: CreateWallTokenInput },
): Promise<CreatedWallTokenRecord> {
  assertCan(ctx.role, 'wallTokens:manage');
  const token = randomSecret(32);
  return prisma.$transaction(async (tx) => {
    const row = await tx.wallToken.create({
      data: { workspaceId: ctx.workspace.id, name: input.name, tokenHash: hashToken(token), createdAt: ctx.now },
      select: wallTokenRecordSelect,
    });
    const shown = toWallTokenRecord(row);
    await recordAuditEvent(tx, ctx, {
      resourceType: 'wall_token',
      resourceId: row.id,
      action: 'created',
      changes: changesBetween(null, shown),
    });
    const record = { ...shown, token, url: `${config.publicBaseUrl}${wallPath(token)}` };
    await ctx.inTransaction?.(tx, record, { ...record, token: null, url: null });
    return record;
  });
}
