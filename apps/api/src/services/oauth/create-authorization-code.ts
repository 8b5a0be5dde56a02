import { hashToken, randomSecret, ValidationError, type PrismaClient } from '@statusvane/shared';
import type { UserServiceContext } from '../context.js';
import { recordUserEvent } from '../users/user-audit.js';
import type { AuthorizationRequest } from './check-authorization-request.js';
import { getConsent } from './get-consent.js';
import { CODE_TTL_MS, scopeCovers } from './oauth-rules.js';

/** The workspaces the user ticked on the consent page, and the primary one among them. */
export interface ConsentChoice {
  workspaceIds: string[];
  primaryWorkspaceId: string | undefined;
}

/**
 * The consent page's "Allow" (with `choice`), or a request the previous consent covers (without): records the
 * consent on the user's connection with the client (one per user and client; the scope only grows) and issues a code
 * bound to it, the redirect URI, the PKCE challenge, the scope and the resource. Used once, within 60 s.
 */
export async function createAuthorizationCode(
  deps: { prisma: PrismaClient },
  { ctx, input }: { ctx: UserServiceContext; input: { request: AuthorizationRequest; choice?: ConsentChoice } },
): Promise<{ code: string }> {
  const { request, choice } = input;
  const consent = await getConsent(deps, { ctx, input: { clientId: request.client.id, scope: request.scope } });
  if (!choice && !consent.covered)
    throw new ValidationError('Consent is needed', [{ path: 'workspaces', message: 'choose' }]);
  const own = new Set(consent.workspaces.map((w) => w.id));
  if (choice) {
    const chosen = [...new Set(choice.workspaceIds.map((id) => id.toLowerCase()))];
    const issues = [];
    if (chosen.length === 0) issues.push({ path: 'workspaces', message: 'Choose at least one workspace' });
    if (chosen.some((id) => !own.has(id)))
      issues.push({ path: 'workspaces', message: 'You can only grant workspaces you are a member of' });
    const primary = choice.primaryWorkspaceId?.toLowerCase();
    if (chosen.length && (!primary || !chosen.includes(primary)))
      issues.push({ path: 'primary', message: 'Choose the primary workspace among the ones you grant' });
    if (issues.length) throw new ValidationError('The consent form has problems', issues);
  }
  const code = randomSecret(32);
  await deps.prisma.$transaction(async (tx) => {
    let connectionId: string;
    if (choice) {
      const workspaceIds = [...new Set(choice.workspaceIds.map((id) => id.toLowerCase()))];
      const scope =
        consent.previous && scopeCovers(consent.previous.scope, request.scope) ? consent.previous.scope : request.scope;
      const data = {
        scope,
        workspaceIds,
        primaryWorkspaceId: choice.primaryWorkspaceId!.toLowerCase(),
        updatedAt: ctx.now,
      };
      const row = await tx.oAuthConnection.upsert({
        where: { userId_clientId: { userId: ctx.userId, clientId: request.client.id } },
        create: { ...data, userId: ctx.userId, clientId: request.client.id, createdAt: ctx.now },
        update: data,
        select: { id: true },
      });
      connectionId = row.id;
      const user = await tx.user.findUniqueOrThrow({
        where: { id: ctx.userId },
        select: { id: true, email: true, name: true },
      });
      await recordUserEvent(tx, user, 'app_connected', ctx.now);
    } else {
      const row = await tx.oAuthConnection.findUniqueOrThrow({
        where: { userId_clientId: { userId: ctx.userId, clientId: request.client.id } },
        select: { id: true },
      });
      connectionId = row.id;
    }
    await tx.oAuthCode.create({
      data: {
        codeHash: hashToken(code),
        connectionId,
        redirectUri: request.redirectUri,
        codeChallenge: request.codeChallenge,
        scope: request.scope,
        resource: request.resource,
        expiresAt: new Date(ctx.now.getTime() + CODE_TTL_MS),
      },
    });
  });
  return { code };
}
