import {
  ConflictError,
  customDomainInputSchema,
  NotFoundError,
  parseOrThrow,
  uuidSchema,
  ValidationError,
  type PrismaClient,
} from '@statusvane/shared';
import { z } from 'zod';
import { isUniqueViolation } from './create-status-page.js';

const bodySchema = z.object({ customDomain: customDomainInputSchema }).strict();

/**
 * Sets (or with null clears) the host name that serves a page at its root. For PATCH /status-pages/{id} (managers;
 * the route is declared elsewhere). 400 for anything but a lower-cased host name, or the deployment's own host
 * (it would shadow every page); 409 `{ customDomain, reason: "taken" }` when another page has it, decided by the
 * unique index; 404 for an unknown or foreign page. The DNS record (a CNAME to the deployment) and TLS for that name
 * are the user's and the proxy's business: nothing here checks them.
 */
export async function setCustomDomain(
  prisma: PrismaClient,
  scope: { workspaceId: string; statusPageId: string; publicBaseUrl: string },
  body: unknown,
): Promise<{ id: string; customDomain: string | null }> {
  if (!uuidSchema.safeParse(scope.statusPageId).success) throw new NotFoundError('Status page', scope.statusPageId);
  const { customDomain } = parseOrThrow(bodySchema, body);
  if (customDomain !== null && customDomain === new URL(scope.publicBaseUrl).hostname.toLowerCase())
    throw new ValidationError('Invalid request: customDomain', [
      { path: 'customDomain', message: "Must not be the service's own host name" },
    ]);
  try {
    const { count } = await prisma.statusPage.updateMany({
      where: { id: scope.statusPageId, workspaceId: scope.workspaceId },
      data: { customDomain },
    });
    if (count === 0) throw new NotFoundError('Status page', scope.statusPageId);
  } catch (err) {
    if (isUniqueViolation(err))
      throw new ConflictError('This domain serves another status page', { customDomain, reason: 'taken' });
    throw err;
  }
  return { id: scope.statusPageId, customDomain };
}
