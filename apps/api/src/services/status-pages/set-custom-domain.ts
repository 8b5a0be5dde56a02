import { ConflictError, type Config, type Issue, type PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { assertCan } from '../auth/permissions.js';
import { findOwnPageId } from '../subscribers/own-page.js';
import { isUniqueViolation } from './create-status-page.js';
import { failWith } from '../validation.js';

/** 400 for the deployment's own host name: it would shadow every page. */
export function ownHostIssues(config: Pick<Config, 'publicBaseUrl'>, customDomain: string | null): Issue[] {
  return customDomain !== null && customDomain === new URL(config.publicBaseUrl).hostname.toLowerCase()
    ? [{ path: 'customDomain', message: "Must not be the service's own host name" }]
    : [];
}

/** The 409 for a domain another page has. */
export const domainTaken = (customDomain: string | null) =>
  new ConflictError('This domain serves another status page', { customDomain, reason: 'taken' });

/**
 * Sets (or with null clears) the host name that serves a page at its root: the `customDomain` of PATCH
 * /status-pages/{id} (managers; `input.customDomain` parsed by customDomainInputSchema). 400 for the deployment's own
 * host (it would shadow every page); 409 `{ customDomain, reason: "taken" }` when another page has it, decided by the
 * unique index; 404 for an unknown or foreign page. DNS (a CNAME to the deployment) and TLS are the user's and the
 * proxy's business: nothing here checks them.
 */
export async function setCustomDomain(
  deps: { prisma: PrismaClient; config: Pick<Config, 'publicBaseUrl'> },
  { ctx, input: { id, customDomain } }: { ctx: ServiceContext; input: { id: string; customDomain: string | null } },
): Promise<{ id: string; customDomain: string | null }> {
  assertCan(ctx.role, 'statusPages:manage');
  const statusPageId = await findOwnPageId(deps.prisma, ctx, id);
  const issues = ownHostIssues(deps.config, customDomain);
  if (issues.length) failWith('request', issues);
  try {
    await deps.prisma.statusPage.update({ where: { id: statusPageId }, data: { customDomain } });
  } catch (err) {
    if (isUniqueViolation(err)) throw domainTaken(customDomain);
    throw err;
  }
  return { id: statusPageId, customDomain };
}
