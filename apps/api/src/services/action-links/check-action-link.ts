import type { PrismaClient } from '@statusvane/shared';
import { findLink, linkState, type LinkState } from './action-link-state.js';

/**
 * GET /a/<token>/<action>: what the link would do, or why it cannot. Reads only: a mail scanner or a link preview
 * that fetches the URL changes nothing (only the confirmation page's POST acts).
 */
export async function checkActionLink(
  deps: { prisma: PrismaClient },
  { ctx, input }: { ctx: { now: Date }; input: { token: string; action: string } },
): Promise<LinkState> {
  return linkState(await findLink(deps.prisma, input.token, input.action), ctx.now);
}
