import {
  ForbiddenError,
  openTarget,
  sealTarget,
  targetSecret,
  type Keyring,
  type PrismaClient,
  type SsrfGuard,
} from '@statusvane/shared';
import type { UserServiceContext } from '../context.js';
import { urlTargetIssues } from '../escalation-policies/policy-input.js';
import { failWith } from '../validation.js';
import {
  contactMethodSelect,
  toContactMethodRecord,
  type ContactMethodRecord,
  type PutContactMethodsInput,
} from './contact-method-record.js';
import { recordUserEvent } from './user-audit.js';

/**
 * PUT /me/contact-methods: replaces the caller's contact methods (the channels of section 5, as escalation targets:
 * URL methods pass the SSRF guard, every secret is stored encrypted and never shown). A method sent again as stored
 * keeps its id, so the pages in flight to it still find it. Recorded in each of the user's workspaces
 * (`user.contact_methods_updated`). An OAuth token may not change them (403).
 */
export async function updateContactMethods(
  deps: { prisma: PrismaClient; guard: SsrfGuard; keyring: Keyring },
  { ctx, input }: { ctx: UserServiceContext; input: PutContactMethodsInput },
): Promise<ContactMethodRecord[]> {
  if (ctx.readOnly) throw new ForbiddenError('An OAuth token may read your contact methods, not change them');
  const issues = await urlTargetIssues(
    deps.guard,
    input.methods.map((target, i) => ({ path: `methods[${i}]`, target })),
  );
  if (issues.length) failWith('contact methods', issues);
  return deps.prisma.$transaction(async (tx) => {
    const user = await tx.user.findUniqueOrThrow({
      where: { id: ctx.userId },
      select: { id: true, email: true, name: true },
    });
    const stored = await tx.contactMethod.findMany({
      where: { userId: ctx.userId },
      select: { id: true, channel: true, targetEnc: true, encKeyId: true },
    });
    const kept = new Map<string, string>();
    for (const m of stored) {
      try {
        kept.set(`${m.channel}#${openTarget({ ...m, legacyTarget: null }, deps.keyring)}`, m.id);
      } catch {
        // Its key is gone: it cannot match anything sent, and is replaced.
      }
    }
    const keep = input.methods.map((m) => kept.get(`${m.channel}#${targetSecret(m)}`) ?? null);
    await tx.contactMethod.deleteMany({
      where: { userId: ctx.userId, id: { notIn: keep.filter((id): id is string => id !== null) } },
    });
    // Positions are unique per user: park the kept rows out of the way before numbering them again.
    await tx.contactMethod.updateMany({ where: { userId: ctx.userId }, data: { position: { increment: 1000 } } });
    for (const [position, method] of input.methods.entries()) {
      const id = keep[position];
      if (id) await tx.contactMethod.update({ where: { id }, data: { position } });
      else
        await tx.contactMethod.create({
          data: { userId: ctx.userId, position, channel: method.channel, ...sealTarget(method, deps.keyring.current) },
        });
    }
    await recordUserEvent(tx, user, 'contact_methods_updated', ctx.now);
    const rows = await tx.contactMethod.findMany({
      where: { userId: ctx.userId },
      orderBy: { position: 'asc' },
      select: contactMethodSelect,
    });
    return rows.map(toContactMethodRecord);
  });
}
