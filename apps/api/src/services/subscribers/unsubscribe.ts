import type { PrismaClient } from '@statusvane/shared';
import type { PageVisitContext } from '../context.js';
import { linkTokenHash } from './subscription-input.js';

/** POST <page>/subscriptions/{token}/unsubscribe: removes the subscriber whose unsubscribe token this is (single-use: the row is gone after). */
export async function unsubscribe(
  { prisma }: { prisma: PrismaClient },
  { ctx: { page }, input: { token } }: { ctx: PageVisitContext; input: { token: string } },
): Promise<boolean> {
  const hash = linkTokenHash(token);
  if (!hash) return false;
  const { count } = await prisma.statusPageSubscriber.deleteMany({
    where: { statusPageId: page.id, unsubscribeTokenHash: hash },
  });
  return count === 1;
}
