import type { Prisma, PrismaClient } from '@statusvane/shared';
import { dateTime, versionSchema, z } from '../../schemas/zod.js';
import type { OwnLookup } from '../records.js';

/** Where a wall token opens its view: under the console's reserved `wall` slug. */
export const wallPath = (token: string) => `/app/wall/${token}`;

export const wallTokenRecordSchema = z
  .object({
    id: z.uuid(),
    version: versionSchema,
    name: z.string().openapi({ description: 'Where the wall hangs (the office screen, the NOC).' }),
    createdAt: dateTime,
    lastUsedAt: dateTime
      .nullable()
      .openapi({ description: 'When the wall view last loaded with it (kept to the minute); null: never.' }),
  })
  .openapi('WallToken', {
    description:
      "A link to the workspace's wall view: read-only, no sign-in. The token is shown once; deleting the record ends " +
      'the view at once.',
  });
export type WallTokenRecord = z.infer<typeof wallTokenRecordSchema>;

export const createdWallTokenSchema = wallTokenRecordSchema
  .extend({
    token: z
      .string()
      .nullable()
      .openapi({
        description:
          'The secret of the link (32 random bytes, base64url), shown in this answer only: only its hash is stored. A ' +
          'replay of the request (same `Idempotency-Key`) answers null: delete that wall token and create another.',
      }),
    url: z.string().nullable().openapi({
      description: '`<PUBLIC_BASE_URL>/app/wall/<token>`: open it on the screen. Null when `token` is.',
    }),
  })
  .openapi('CreatedWallToken');
export type CreatedWallTokenRecord = z.infer<typeof createdWallTokenSchema>;

export const wallTokenRecordSelect = {
  id: true,
  version: true,
  name: true,
  createdAt: true,
  lastUsedAt: true,
} satisfies Prisma.WallTokenSelect;
type WallTokenRow = Prisma.WallTokenGetPayload<{ select: typeof wallTokenRecordSelect }>;

/** findOwn's lookup of one of the caller's wall tokens. */
export const wallTokenLookup: OwnLookup<Pick<PrismaClient, 'wallToken'>, WallTokenRow> = {
  noun: 'wall token',
  find: (db, { id, workspaceId }) =>
    db.wallToken.findFirst({ where: { id, workspaceId }, select: wallTokenRecordSelect }),
};

export function toWallTokenRecord(row: WallTokenRow): WallTokenRecord {
  return {
    id: row.id,
    version: row.version,
    name: row.name,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
  };
}
