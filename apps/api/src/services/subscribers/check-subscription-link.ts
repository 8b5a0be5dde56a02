import type { PrismaClient } from '@statusvane/shared';
import type { PageVisitContext } from '../context.js';
import { linkTokenHash } from './subscription-input.js';

/**
 * GET <page>/subscriptions/{token}/{action}: whether the token is a live link of this page (to show the confirm or
 * unsubscribe button, or say it is not). Reads only: mail scanners open links.
 */
export async function checkSubscriptionLink(
  { prisma }: { prisma: PrismaClient },
  {
    ctx: { page, now },
    input: { action, token },
  }: { ctx: PageVisitContext; input: { action: 'confirm' | 'unsubscribe'; token: string } },
): Promise<boolean> {
  const hash = linkTokenHash(token);
  if (!hash) return false;
  const where =
    action === 'confirm'
      ? { statusPageId: page.id, confirmTokenHash: hash, confirmExpiresAt: { gt: now } }
      : { statusPageId: page.id, unsubscribeTokenHash: hash };
  return (await prisma.statusPageSubscriber.count({ where })) === 1;
}
