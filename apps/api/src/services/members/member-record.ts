import { ROLES, type Prisma, type PrismaClient } from '@statusvane/shared';
import { dateTime, versionSchema, z } from '../../schemas/zod.js';
import type { OwnLookup } from '../records.js';

export const memberRecordSchema = z
  .object({
    userId: z.uuid(),
    version: versionSchema,
    email: z.email(),
    name: z.string().nullable(),
    role: z.enum(ROLES),
    passwordSet: z.boolean().openapi({
      description:
        'Whether the user has a console password. Until then, `POST /members` mails them a link to choose one (48 hours).',
    }),
    createdAt: dateTime.openapi({ description: 'When the user joined the workspace.' }),
  })
  .openapi('Member', {
    description: "A user's membership: their personal and OAuth tokens act in the workspace with this role.",
  });
export type MemberRecord = z.infer<typeof memberRecordSchema>;

export const memberRecordSelect = {
  id: true,
  version: true,
  role: true,
  createdAt: true,
  user: { select: { id: true, email: true, name: true, passwordHash: true } },
} satisfies Prisma.MembershipSelect;
type MemberRow = Prisma.MembershipGetPayload<{ select: typeof memberRecordSelect }>;

export function toMemberRecord(row: MemberRow): MemberRecord {
  return {
    userId: row.user.id,
    version: row.version,
    email: row.user.email,
    name: row.user.name,
    role: row.role,
    passwordSet: row.user.passwordHash !== null,
    createdAt: row.createdAt.toISOString(),
  };
}

/** findOwn's lookup of a member of the caller's workspace by user id (a user of another workspace only: 404). */
export const memberLookup: OwnLookup<Pick<PrismaClient, 'membership'>, MemberRow> = {
  noun: 'member',
  find: (db, { id, workspaceId }) =>
    db.membership.findUnique({
      where: { workspaceId_userId: { workspaceId, userId: id } },
      select: memberRecordSelect,
    }),
};
