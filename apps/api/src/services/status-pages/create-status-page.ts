import {
  ConflictError,
  RESERVED_SLUGS,
  type Config,
  type CreateStatusPageInput,
  type PrismaClient,
} from '@statusvane/shared';
import { changesBetween, recordAuditEvent } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { isUniqueViolation } from '../records.js';
import { statusPageRecordSelect, toStatusPageRecord, type StatusPageRecord } from './status-page-record.js';

/**
 * POST /status-pages: normalises vanityUrl to a slug; a reserved slug or one any workspace already uses is 409.
 * "Taken" is decided by the unique index on slug, not by a prior read, so two concurrent creates of one slug
 * yield one page and one 409.
 */
export async function createStatusPage(
  deps: { prisma: PrismaClient; config: Pick<Config, 'publicBaseUrl'> },
  { ctx, input: p }: { ctx: ServiceContext; input: CreateStatusPageInput },
): Promise<StatusPageRecord> {
  assertCan(ctx.role, 'statusPages:manage');
  if (RESERVED_SLUGS.has(p.slug)) {
    throw new ConflictError(`The slug "${p.slug}" is reserved`, { slug: p.slug, reason: 'reserved' });
  }
  try {
    // One transaction with `ctx.inTransaction` (the Idempotency-Key's stored answer), so both commit or neither does.
    return await deps.prisma.$transaction(async (tx) => {
      const row = await tx.statusPage.create({
        data: {
          workspaceId: ctx.workspace.id,
          name: p.name,
          slug: p.slug,
          isPublic: p.isPublic,
          // Left out: none.
          logoUrl: p.logoUrl ?? null,
          faviconUrl: p.faviconUrl ?? null,
          brandColor: p.brandColor ?? null,
          websiteUrl: p.websiteUrl ?? null,
        },
        select: statusPageRecordSelect,
      });
      const record = toStatusPageRecord(row, deps.config.publicBaseUrl);
      await recordAuditEvent(tx, ctx, {
        resourceType: 'status_page',
        resourceId: row.id,
        action: 'created',
        changes: changesBetween(null, record),
      });
      await ctx.inTransaction?.(tx, record);
      return record;
    });
  } catch (err) {
    if (isUniqueViolation(err))
      throw new ConflictError(`The slug "${p.slug}" is already taken`, { slug: p.slug, reason: 'taken' });
    throw err;
  }
}
