import { hashToken, randomSecret } from '../crypto/secrets.js';
import type { PrismaClient } from '../db/prisma.js';

/** The longest an acknowledge or resolve link of a page lives (it also dies with the incident's resolution). */
export const ACTION_LINK_TTL_MS = 7 * 24 * 3_600_000;
export const ACTION_LINK_ACTIONS = ['acknowledge', 'resolve'] as const;
export type LinkAction = (typeof ACTION_LINK_ACTIONS)[number];

/** `/a/<token>/<action>`: 43 URL-safe characters of 32 random bytes. */
export const ACTION_LINK_TOKEN = /^[A-Za-z0-9_-]{43}$/;

export interface ActionLinks {
  acknowledge: string;
  resolve: string;
}

/**
 * The acknowledge and resolve links of one page (one delivery): a random token per action, stored as its SHA-256
 * only, shown in the message and nowhere else (beyond-the-seed section 10). `userId`: the paged user, whom the link
 * acts as. Called once per delivery, by the worker that claimed it, just before sending.
 */
export async function createActionLinks(
  prisma: Pick<PrismaClient, 'actionLink'>,
  publicBaseUrl: string,
  page: { deliveryId: string; incidentId: string; userId: string | null; now: Date },
): Promise<ActionLinks> {
  const tokens = { acknowledge: randomSecret(32), resolve: randomSecret(32) };
  const expiresAt = new Date(page.now.getTime() + ACTION_LINK_TTL_MS);
  await prisma.actionLink.createMany({
    data: ACTION_LINK_ACTIONS.map((action) => ({
      tokenHash: hashToken(tokens[action]),
      deliveryId: page.deliveryId,
      incidentId: page.incidentId,
      action,
      userId: page.userId,
      expiresAt,
    })),
  });
  const base = publicBaseUrl.replace(/\/+$/, '');
  return {
    acknowledge: `${base}/a/${tokens.acknowledge}/acknowledge`,
    resolve: `${base}/a/${tokens.resolve}/resolve`,
  };
}
