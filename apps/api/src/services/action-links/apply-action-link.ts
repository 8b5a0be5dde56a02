import {
  ForbiddenError,
  type EscalationScheduler,
  type Logger,
  type PrismaClient,
  type Role,
} from '@statusvane/shared';
import { can } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { acknowledgeIncident } from '../incidents/acknowledge-incident.js';
import { resolveIncident } from '../incidents/resolve-incident.js';
import { findLink, linkState, type LinkRow, type LinkState } from './action-link-state.js';

/**
 * POST /a/<token>/<action>: acknowledges or resolves the incident of a page, once. The link is spent first (a
 * conditional update: of two clicks racing, one acts and the other is told it was used), then the action runs
 * through the incident verbs, audited with actor type `link`: the paged user where there is one (and only while
 * they are a writer of the workspace: 403 otherwise, the link left unspent), else the delivery. An action the
 * incident refuses (acknowledging a resolved one) gives the link back.
 */
export async function applyActionLink(
  deps: { prisma: PrismaClient; escalations?: EscalationScheduler | undefined; logger: Logger },
  { ctx, input }: { ctx: { now: Date }; input: { token: string; action: string } },
): Promise<LinkState> {
  const { prisma } = deps;
  const row = await findLink(prisma, input.token, input.action);
  const state = linkState(row, ctx.now);
  if (!state.usable || !row) return state;
  const caller = await callerOf(prisma, row, ctx.now);
  const { count } = await prisma.actionLink.updateMany({
    where: { id: row.id, usedAt: null },
    data: { usedAt: ctx.now },
  });
  if (count === 0) return { usable: false, why: 'used', incident: row.incident };
  try {
    const act = row.action === 'acknowledge' ? acknowledgeIncident : resolveIncident;
    const incident = await act(deps, { ctx: caller, input: { id: row.incident.id } });
    return { ...state, incident: { ...row.incident, status: incident.status } };
  } catch (err) {
    await prisma.actionLink.updateMany({ where: { id: row.id }, data: { usedAt: null } });
    throw err;
  }
}

const WRITERS: readonly Role[] = ['owner', 'admin', 'member'];

/** Who the link acts as: the paged user with their live role (a writer, or 403), else the delivery as a member. */
async function callerOf(prisma: PrismaClient, row: LinkRow, now: Date): Promise<ServiceContext> {
  const workspace = await prisma.workspace.findUniqueOrThrow({
    where: { id: row.incident.workspaceId },
    select: { id: true, slug: true, name: true, plan: true },
  });
  const base = { workspace, tokenId: row.id, tokenKind: 'link' as const, principal: `link:${row.id}`, now };
  if (!row.userId) {
    const name = `page ${row.delivery.id} (${row.delivery.channel})`;
    return { ...base, role: 'member', userId: null, actor: { type: 'link', id: row.delivery.id, name } };
  }
  const member = await prisma.membership.findUnique({
    where: { workspaceId_userId: { workspaceId: workspace.id, userId: row.userId } },
    select: { role: true, user: { select: { name: true, email: true } } },
  });
  if (!member || !WRITERS.includes(member.role) || !can(member.role, 'incidents:respond'))
    throw new ForbiddenError('The paged user may no longer acknowledge or resolve incidents in this workspace');
  return {
    ...base,
    role: member.role,
    userId: row.userId,
    actor: { type: 'link', id: row.userId, name: member.user.name || member.user.email },
  };
}
