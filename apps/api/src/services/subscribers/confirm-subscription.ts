import type { PrismaClient } from '@statusvane/shared';
import type { PageVisitContext } from '../context.js';
import { linkTokenHash } from './subscription-input.js';

/** POST <page>/subscriptions/{token}/confirm: confirms with a one-time link token of this page; false when unknown, used or expired (all the same). */
export async function confirmSubscription(
  { prisma }: { prisma: PrismaClient },
  { ctx: { page, now }, input: { token } }: { ctx: PageVisitContext; input: { token: string } },
): Promise<boolean> {
  const hash = linkTokenHash(token);
  if (!hash) return false;
  const { count } = await prisma.statusPageSubscriber.updateMany({
    where: { statusPageId: page.id, confirmTokenHash: hash, confirmExpiresAt: { gt: now } },
    data: { confirmedAt: now, confirmTokenHash: null, confirmTokenEnc: null, confirmExpiresAt: null },
  });
  return count === 1;
}
