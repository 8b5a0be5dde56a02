import { ACTION_LINK_TOKEN, hashToken, shownTarget, type LinkAction, type Prisma } from '@statusvane/shared';

/** What a link page shows of the incident. */
export interface LinkIncident {
  id: string;
  title: string;
  status: 'open' | 'acknowledged' | 'resolved';
  impact: string;
  startedAt: Date;
}

/** A link that can act, or why it cannot (`unknown`: 404; the others: 410 Gone). */
export type LinkState =
  | { usable: true; linkId: string; action: LinkAction; incident: LinkIncident; paged: string }
  | { usable: false; why: 'unknown' | 'used' | 'expired' | 'resolved'; incident?: LinkIncident };

const linkSelect = {
  id: true,
  action: true,
  usedAt: true,
  expiresAt: true,
  userId: true,
  delivery: { select: { id: true, channel: true, target: true } },
  incident: {
    select: { id: true, workspaceId: true, title: true, status: true, impact: true, startedAt: true },
  },
} as const satisfies Prisma.ActionLinkSelect;
export type LinkRow = Prisma.ActionLinkGetPayload<{ select: typeof linkSelect }>;

/** The link a token names, for that action (a token of the other action, or no token at all: null). */
export async function findLink(
  db: Pick<Prisma.TransactionClient, 'actionLink'>,
  token: string,
  action: string,
): Promise<LinkRow | null> {
  if (!ACTION_LINK_TOKEN.test(token)) return null;
  const row = await db.actionLink.findUnique({ where: { tokenHash: hashToken(token) }, select: linkSelect });
  return row && row.action === action ? row : null;
}

/**
 * Whether a link can act at `now`: not used, not past `expiresAt` (7 days after its page), and its incident not
 * resolved. One rule for the confirmation page (GET) and the action (POST).
 */
export function linkState(row: LinkRow | null, now: Date): LinkState {
  if (!row) return { usable: false, why: 'unknown' };
  const incident = row.incident;
  if (row.usedAt) return { usable: false, why: 'used', incident };
  if (incident.status === 'resolved') return { usable: false, why: 'resolved', incident };
  if (row.expiresAt <= now) return { usable: false, why: 'expired', incident };
  return {
    usable: true,
    linkId: row.id,
    action: row.action,
    incident,
    paged: `${row.delivery.channel} ${shownTarget(row.delivery.channel, row.delivery.target)}`,
  };
}
