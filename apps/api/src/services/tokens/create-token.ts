import { ForbiddenError, hashToken, ROLES, type PrismaClient, shownText } from '@statusvane/shared';
import { z } from '../../schemas/zod.js';
import { displayPrefix, newToken } from './token-value.js';
import { changesBetween, recordAuditEvent } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { apiTokenRecordSelect, toApiTokenRecord, type CreatedApiTokenRecord } from './token-record.js';

export const createTokenSchema = z
  .object({
    name: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .superRefine(shownText)
      .openapi({ description: 'What the token is for (a CI job, an integration).' }),
    role: z.enum(ROLES).openapi({ description: 'The role it acts with. Only an owner may mint an owner token.' }),
    expiresInDays: z
      .number()
      .int()
      .min(1)
      .max(3650)
      .optional()
      .openapi({ description: 'It stops working this many days from now; omitted: it does not expire.' }),
  })
  .strict()
  .openapi('CreateTokenInput');
export type CreateTokenInput = z.output<typeof createTokenSchema>;

const DAY_MS = 86_400_000;

/**
 * POST /tokens (managers): a workspace token with its own role. The secret is in this answer only and stored as a
 * hash; a replay with the same Idempotency-Key answers the record with `token: null`. An admin cannot mint an owner
 * token (403): no role can hand out more than it has.
 */
export async function createToken(
  { prisma }: { prisma: PrismaClient },
  { ctx, input }: { ctx: ServiceContext; input: CreateTokenInput },
): Promise<CreatedApiTokenRecord> {
  assertCan(ctx.role, 'tokens:manage');
  if (input.role === 'owner' && ctx.role !== 'owner') throw new ForbiddenError('Only an owner may mint an owner token');
  const token = newToken('org');
  return prisma.$transaction(async (tx) => {
    const row = await tx.apiToken.create({
      data: {
        kind: 'org',
        name: input.name,
        role: input.role,
        workspaceId: ctx.workspace.id,
        tokenHash: hashToken(token),
        displayPrefix: displayPrefix(token, 'org'),
        expiresAt: input.expiresInDays ? new Date(ctx.now.getTime() + input.expiresInDays * DAY_MS) : null,
      },
      select: apiTokenRecordSelect,
    });
    const shown = toApiTokenRecord(row);
    await recordAuditEvent(tx, ctx, {
      resourceType: 'token',
      resourceId: row.id,
      action: 'created',
      changes: changesBetween(null, shown),
    });
    const record = { ...shown, token };
    await ctx.inTransaction?.(tx, record, { ...record, token: null });
    return record;
  });
}
