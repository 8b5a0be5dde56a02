import type { PrismaClient } from '@statusvane/shared';
import type { UserServiceContext } from '../context.js';
import { contactMethodSelect, toContactMethodRecord, type ContactMethodRecord } from './contact-method-record.js';

/** GET /me/contact-methods: the caller's own contact methods, in the order pages go out (secrets never shown). */
export async function listContactMethods(
  deps: { prisma: PrismaClient },
  { ctx }: { ctx: UserServiceContext; input: Record<string, never> },
): Promise<ContactMethodRecord[]> {
  const rows = await deps.prisma.contactMethod.findMany({
    where: { userId: ctx.userId },
    orderBy: { position: 'asc' },
    select: contactMethodSelect,
  });
  return rows.map(toContactMethodRecord);
}
