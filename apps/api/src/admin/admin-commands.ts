import { z } from 'zod';
import {
  AppError,
  hashToken,
  NotFoundError,
  parseOrThrow,
  PLANS,
  ROLES,
  type PrismaClient,
  shownText,
} from '@statusvane/shared';
import { isReservedWorkspaceSlug } from '../console/reserved-slugs.js';
import { changesBetween, cliWriteContext, recordAuditEvent } from '../services/audit/record-write.js';
import { addMember as addMemberService } from '../services/members/add-member.js';
import { createToken as createOrgToken, createTokenSchema } from '../services/tokens/create-token.js';
import { deleteToken as deleteOrgToken } from '../services/tokens/delete-token.js';
import { removeMember as removeMemberService } from '../services/members/remove-member.js';
import { updateMember } from '../services/members/update-member.js';
import { cliContext } from './cli-context.js';
import { displayPrefix, newToken } from '../services/tokens/token-value.js';

/** Workspace slugs: what status page slugs allow, so a slug is safe in any URL. */
export const workspaceSlugSchema = z
  .string()
  .min(2)
  .max(63)
  .regex(/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/, 'lower-case letters, digits and inner hyphens only')
  .refine((slug) => !isReservedWorkspaceSlug(slug), 'is reserved for the console (/app/<slug>)');
const email = z
  .email()
  .max(320)
  .transform((e) => e.toLowerCase());
const selector = z.string().min(1).max(100);

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A workspace by slug or id (the admin commands' `--workspace`). */
export async function findWorkspace(prisma: PrismaClient, sel: string) {
  const ws = await prisma.workspace.findFirst({
    where: UUID_RE.test(sel) ? { OR: [{ id: sel.toLowerCase() }, { slug: sel }] } : { slug: sel.toLowerCase() },
  });
  if (!ws) throw new NotFoundError('workspace', sel);
  return ws;
}

export async function findUser(prisma: PrismaClient, address: string) {
  const user = await prisma.user.findUnique({ where: { email: address } });
  if (!user) throw new NotFoundError('user', address);
  return user;
}

const workspaceOut = (w: { id: string; slug: string; name: string; plan: string; createdAt: Date }) => ({
  id: w.id,
  slug: w.slug,
  name: w.name,
  plan: w.plan,
  createdAt: w.createdAt.toISOString(),
});

/** workspace create --slug --name [--plan] */
export async function createWorkspace(prisma: PrismaClient, raw: unknown) {
  const input = parseOrThrow(
    z
      .object({
        slug: workspaceSlugSchema,
        name: z.string().min(1).max(200).superRefine(shownText),
        plan: z.enum(PLANS).default('free'),
      })
      .strict(),
    raw,
    'arguments',
  );
  const existing = await prisma.workspace.findUnique({ where: { slug: input.slug } });
  if (existing) throw new AppError('conflict', `workspace ${input.slug} already exists`);
  return prisma.$transaction(async (tx) => {
    const ws = await tx.workspace.create({ data: input });
    const out = workspaceOut(ws);
    await recordAuditEvent(tx, cliWriteContext(ws.id), {
      resourceType: 'workspace',
      resourceId: ws.id,
      action: 'created',
      changes: changesBetween(null, out),
    });
    return out;
  });
}

/** user create --email [--name] */
export async function createUser(prisma: PrismaClient, raw: unknown) {
  const input = parseOrThrow(
    z.object({ email, name: z.string().min(1).max(200).superRefine(shownText).optional() }).strict(),
    raw,
    'arguments',
  );
  if (await prisma.user.findUnique({ where: { email: input.email } })) {
    throw new AppError('conflict', `user ${input.email} already exists`);
  }
  const user = await prisma.user.create({ data: input });
  return { id: user.id, email: user.email, name: user.name, createdAt: user.createdAt.toISOString() };
}

/**
 * member add --workspace --email --role: POST /members through the same service (PATCH /members/{userId} when
 * already a member, so the owner rules hold here too). The user must exist (`user create`).
 */
export async function addMember(prisma: PrismaClient, raw: unknown) {
  const input = parseOrThrow(z.object({ workspace: selector, email, role: z.enum(ROLES) }).strict(), raw, 'arguments');
  const ws = await findWorkspace(prisma, input.workspace);
  const user = await findUser(prisma, input.email);
  const ctx = cliContext(ws);
  const existing = await prisma.membership.findUnique({
    where: { workspaceId_userId: { workspaceId: ws.id, userId: user.id } },
  });
  if (existing) await updateMember({ prisma }, { ctx, input: { userId: user.id, changes: { role: input.role } } });
  else await addMemberService({ prisma }, { ctx, input: { email: user.email, role: input.role } });
  const m = await prisma.membership.findUniqueOrThrow({
    where: { workspaceId_userId: { workspaceId: ws.id, userId: user.id } },
  });
  return { id: m.id, workspaceId: ws.id, workspace: ws.slug, userId: user.id, email: user.email, role: m.role };
}

/** member remove --workspace --email: DELETE /members/{userId} through the same service (the last owner stays). */
export async function removeMember(prisma: PrismaClient, raw: unknown) {
  const input = parseOrThrow(z.object({ workspace: selector, email }).strict(), raw, 'arguments');
  const ws = await findWorkspace(prisma, input.workspace);
  const user = await findUser(prisma, input.email);
  await removeMemberService({ prisma }, { ctx: cliContext(ws), input: { userId: user.id } });
  return { removed: true, workspaceId: ws.id, workspace: ws.slug, userId: user.id, email: user.email };
}

const tokenInput = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('org'),
      workspace: selector,
      role: z.enum(ROLES),
      name: z.string().max(200).superRefine(shownText).optional(),
      expiresInDays: z.coerce.number().optional(),
    })
    .strict(),
  z
    .object({ kind: z.literal('personal'), email, name: z.string().max(200).superRefine(shownText).optional() })
    .strict(),
  z
    .object({
      kind: z.literal('oauth'),
      email,
      workspaces: z
        .string()
        .transform((s) => [
          ...new Set(
            s
              .split(',')
              .map((x) => x.trim())
              .filter(Boolean),
          ),
        ])
        .pipe(z.array(selector).min(1, 'grant at least one workspace')),
      primary: selector.optional(),
      expiresIn: z.coerce
        .number()
        .int()
        .min(60)
        .max(365 * 86400)
        .default(3600),
      name: z.string().max(200).superRefine(shownText).optional(),
    })
    .strict(),
]);

/** token create --kind org|personal|oauth ...: the secret is printed once, here, and stored only as a hash. */
export async function createToken(prisma: PrismaClient, raw: unknown, now = new Date()) {
  const input = parseOrThrow(tokenInput, raw, 'arguments');
  const token = newToken(input.kind);
  const base = {
    kind: input.kind,
    name: input.name ?? null,
    tokenHash: hashToken(token),
    displayPrefix: displayPrefix(token, input.kind),
  };

  if (input.kind === 'org') {
    // A workspace token: the API's service (POST /tokens), with the rules and the audit event it records.
    const ws = await findWorkspace(prisma, input.workspace);
    const created = await createOrgToken(
      { prisma },
      {
        ctx: cliContext(ws, now),
        input: parseOrThrow(
          createTokenSchema,
          { name: input.name ?? 'admin CLI', role: input.role, expiresInDays: input.expiresInDays },
          'arguments',
        ),
      },
    );
    return {
      id: created.id,
      kind: 'org' as const,
      token: created.token!,
      name: created.name,
      workspaceId: ws.id,
      workspace: ws.slug,
      role: created.role,
      expiresAt: created.expiresAt,
    };
  }
  const user = await findUser(prisma, input.email);
  if (input.kind === 'personal') {
    const row = await prisma.apiToken.create({ data: { ...base, userId: user.id } });
    return { id: row.id, kind: row.kind, token, name: row.name, userId: user.id, email: user.email };
  }
  const granted = await Promise.all(input.workspaces.map((w) => findWorkspace(prisma, w)));
  const primary = input.primary ? await findWorkspace(prisma, input.primary) : granted[0]!;
  if (!granted.some((w) => w.id === primary.id)) {
    throw new AppError('invalid_request', `--primary ${input.primary} must be one of --workspaces`);
  }
  const expiresAt = new Date(now.getTime() + input.expiresIn * 1000);
  const row = await prisma.apiToken.create({
    data: {
      ...base,
      userId: user.id,
      primaryWorkspaceId: primary.id,
      expiresAt,
      grants: { create: granted.map((w) => ({ workspaceId: w.id })) },
    },
  });
  return {
    id: row.id,
    kind: row.kind,
    token,
    name: row.name,
    userId: user.id,
    email: user.email,
    workspaces: granted.map((w) => w.slug),
    primaryWorkspace: primary.slug,
    expiresAt: expiresAt.toISOString(),
  };
}

/**
 * token revoke --id: takes effect on the next request. An org token is revoked by the API's service (DELETE
 * /tokens/{id}), which records `token.deleted`; personal and OAuth tokens belong to a user, not to a workspace, and
 * have no audit log to go to. Revoking a revoked token changes nothing and says when it was revoked.
 */
export async function revokeToken(prisma: PrismaClient, raw: unknown, now = new Date()) {
  const input = parseOrThrow(z.object({ id: z.uuid() }).strict(), raw, 'arguments');
  const row = await prisma.apiToken.findUnique({ where: { id: input.id } });
  if (!row) throw new NotFoundError('token', input.id);
  if (!row.revokedAt) {
    if (row.kind === 'org' && row.workspaceId) {
      const ws = await findWorkspace(prisma, row.workspaceId);
      await deleteOrgToken({ prisma }, { ctx: cliContext(ws, now), input: { id: row.id } });
    } else {
      await prisma.apiToken.update({ where: { id: row.id }, data: { revokedAt: now } });
    }
  }
  const revoked = await prisma.apiToken.findUniqueOrThrow({ where: { id: row.id } });
  return { id: revoked.id, kind: revoked.kind, revokedAt: revoked.revokedAt!.toISOString() };
}
