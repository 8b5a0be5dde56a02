import {
  ForbiddenError,
  NotFoundError,
  openTarget,
  sealTarget,
  targetSecret,
  uuidSchema,
  type ChannelTargetInput,
  type Keyring,
  type Prisma,
  type PrismaClient,
  type SsrfGuard,
} from '@statusvane/shared';
import type { UserServiceContext } from '../context.js';
import { urlTargetIssues } from '../escalation-policies/policy-input.js';
import { failWith } from '../validation.js';
import {
  CONTACT_METHODS_MAX,
  contactMethodSelect,
  toContactMethodRecord,
  type ContactMethodRecord,
  type PutContactMethodsInput,
} from './contact-method-record.js';
import { recordUserEvent } from './user-audit.js';

type ContactDeps = { prisma: PrismaClient; guard: SsrfGuard; keyring: Keyring };

/**
 * PUT /me/contact-methods: replaces the caller's contact methods (the channels of section 5, as escalation targets:
 * URL methods pass the SSRF guard, every secret is stored encrypted and never shown). A method sent again as stored
 * keeps its id, so the pages in flight to it still find it. Recorded in each of the user's workspaces
 * (`user.contact_methods_updated`). An OAuth token may not change them (403).
 */
export async function updateContactMethods(
  deps: ContactDeps,
  { ctx, input }: { ctx: UserServiceContext; input: PutContactMethodsInput },
): Promise<ContactMethodRecord[]> {
  await assertMethodsAllowed(deps, ctx, input.methods, (i) => `methods[${i}]`);
  return writeMethods(deps, ctx, async (tx) => {
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
    return input.methods.map((method) => {
      const id = kept.get(`${method.channel}#${targetSecret(method)}`);
      return id ? { id } : { method };
    });
  });
}

/**
 * The console's "add a contact method" (`/app/account/contact-methods`): `method` after the caller's others, which
 * keep their ids. As PUT judges it (SSRF guard, at most CONTACT_METHODS_MAX, a 400 naming `method.<field>`).
 */
export async function addContactMethod(
  deps: ContactDeps,
  { ctx, input }: { ctx: UserServiceContext; input: { method: ChannelTargetInput } },
): Promise<ContactMethodRecord[]> {
  await assertMethodsAllowed(deps, ctx, [input.method], () => 'method');
  return writeMethods(deps, ctx, async (tx) => {
    const stored = await storedIds(tx, ctx);
    if (stored.length >= CONTACT_METHODS_MAX)
      failWith('contact methods', [
        { path: 'method', message: `You have ${CONTACT_METHODS_MAX} contact methods, the most there can be` },
      ]);
    return [...stored, { method: input.method }];
  });
}

/** The console's "remove" of one contact method; the others keep their ids and order. 404: not the caller's. */
export async function removeContactMethod(
  deps: ContactDeps,
  { ctx, input }: { ctx: UserServiceContext; input: { id: string } },
): Promise<ContactMethodRecord[]> {
  if (ctx.readOnly) throw new ForbiddenError('An OAuth token may read your contact methods, not change them');
  return writeMethods(deps, ctx, async (tx) => {
    const stored = await storedIds(tx, ctx);
    if (!uuidSchema.safeParse(input.id).success || !stored.some((m) => m.id === input.id))
      throw new NotFoundError('contact method', input.id);
    return stored.filter((m) => m.id !== input.id);
  });
}

/** What a write is refused for before it starts: an OAuth token (403), a URL the SSRF guard refuses (400). */
async function assertMethodsAllowed(
  deps: ContactDeps,
  ctx: UserServiceContext,
  methods: readonly ChannelTargetInput[],
  pathOf: (i: number) => string,
): Promise<void> {
  if (ctx.readOnly) throw new ForbiddenError('An OAuth token may read your contact methods, not change them');
  const issues = await urlTargetIssues(
    deps.guard,
    methods.map((target, i) => ({ path: pathOf(i), target })),
  );
  if (issues.length) failWith('contact methods', issues);
}

/** The caller's stored methods by id, in page order. */
function storedIds(tx: Prisma.TransactionClient, ctx: UserServiceContext): Promise<Array<{ id: string }>> {
  return tx.contactMethod.findMany({
    where: { userId: ctx.userId },
    orderBy: { position: 'asc' },
    select: { id: true },
  });
}

/** One method of the new list: a stored one kept by id, or a new one to seal. */
type NextMethod = { id: string } | { method: ChannelTargetInput };

/**
 * Every write of a user's methods, in one transaction: `next` (read inside it) becomes the whole list in its order;
 * stored methods it leaves out are deleted; the change is recorded in each of the user's workspaces.
 */
async function writeMethods(
  deps: ContactDeps,
  ctx: UserServiceContext,
  next: (tx: Prisma.TransactionClient) => Promise<NextMethod[]>,
): Promise<ContactMethodRecord[]> {
  return deps.prisma.$transaction(async (tx) => {
    // The user's row locked: two writes of one person's methods take turns, each reading what the other wrote.
    await tx.$executeRaw`SELECT 1 FROM users WHERE id = ${ctx.userId}::uuid FOR UPDATE`;
    const user = await tx.user.findUniqueOrThrow({
      where: { id: ctx.userId },
      select: { id: true, email: true, name: true },
    });
    const list = await next(tx);
    const keep = list.flatMap((m) => ('id' in m ? [m.id] : []));
    await tx.contactMethod.deleteMany({ where: { userId: ctx.userId, id: { notIn: keep } } });
    // Positions are unique per user: park the kept rows out of the way before numbering them again.
    await tx.contactMethod.updateMany({ where: { userId: ctx.userId }, data: { position: { increment: 1000 } } });
    for (const [position, m] of list.entries()) {
      if ('id' in m) await tx.contactMethod.update({ where: { id: m.id }, data: { position } });
      else
        await tx.contactMethod.create({
          data: {
            userId: ctx.userId,
            position,
            channel: m.method.channel,
            ...sealTarget(m.method, deps.keyring.current),
          },
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
