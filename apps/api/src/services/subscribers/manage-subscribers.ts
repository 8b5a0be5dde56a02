import {
  NotFoundError,
  pagination,
  uuidSchema,
  type Pagination,
  type PaginationQuery,
  type PrismaClient,
} from '@statusvane/shared';
import type { RequestContext } from '../auth/context.js';
import { assertCan } from '../auth/permissions.js';

/** `j***@example.com`: enough to recognise an address, not to harvest it. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return '***';
  return `${email[0]}***${email.slice(at)}`;
}

async function ownPage(prisma: PrismaClient, ctx: RequestContext, statusPageId: string) {
  if (!uuidSchema.safeParse(statusPageId).success) throw new NotFoundError('status page', statusPageId);
  const page = await prisma.statusPage.findFirst({
    where: { id: statusPageId, workspaceId: ctx.workspace.id },
    select: { id: true },
  });
  if (!page) throw new NotFoundError('status page', statusPageId);
  return page;
}

/**
 * GET /status-pages/{id}/subscribers (managers): newest first, addresses masked (emails as `j***@domain`, webhooks
 * as `scheme://host/…`); never a token or secret.
 */
export async function listSubscribers(
  prisma: PrismaClient,
  { ctx, statusPageId, query }: { ctx: RequestContext; statusPageId: string; query: PaginationQuery },
): Promise<{ data: Array<Record<string, unknown>>; pagination: Pagination }> {
  assertCan(ctx.role, 'statusPages:manage');
  const page = await ownPage(prisma, ctx, statusPageId);
  const where = { statusPageId: page.id, workspaceId: ctx.workspace.id };
  const [total, rows] = await prisma.$transaction([
    prisma.statusPageSubscriber.count({ where }),
    prisma.statusPageSubscriber.findMany({
      where,
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      skip: (query.page - 1) * query.perPage,
      take: query.perPage,
      select: {
        id: true,
        kind: true,
        email: true,
        webhookDisplay: true,
        confirmedAt: true,
        createdAt: true,
        components: { select: { componentId: true } },
      },
    }),
  ]);
  return {
    data: rows.map((r) => ({
      id: r.id,
      kind: r.kind,
      address: r.kind === 'email' ? maskEmail(r.email ?? '') : r.webhookDisplay,
      componentIds: r.components.map((c) => c.componentId).sort(),
      confirmed: r.confirmedAt !== null,
      confirmedAt: r.confirmedAt?.toISOString() ?? null,
      createdAt: r.createdAt.toISOString(),
    })),
    pagination: pagination(query, total),
  };
}

/** DELETE /status-pages/{id}/subscribers/{subscriberId} (managers) -> 204; unknown or foreign: 404. */
export async function deleteSubscriber(
  prisma: PrismaClient,
  { ctx, statusPageId, subscriberId }: { ctx: RequestContext; statusPageId: string; subscriberId: string },
): Promise<void> {
  assertCan(ctx.role, 'statusPages:manage');
  const page = await ownPage(prisma, ctx, statusPageId);
  if (!uuidSchema.safeParse(subscriberId).success) throw new NotFoundError('subscriber', subscriberId);
  const { count } = await prisma.statusPageSubscriber.deleteMany({
    where: { id: subscriberId, statusPageId: page.id, workspaceId: ctx.workspace.id },
  });
  if (count === 0) throw new NotFoundError('subscriber', subscriberId);
}
