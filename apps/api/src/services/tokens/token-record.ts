import { ROLES, type Prisma, type PrismaClient } from '@statusvane/shared';
import { dateTime, versionSchema, z } from '../../schemas/zod.js';
import type { OwnLookup } from '../records.js';

export const apiTokenRecordSchema = z
  .object({
    id: z.uuid(),
    version: versionSchema,
    name: z.string().nullable(),
    role: z.enum(ROLES),
    prefix: z.string().openapi({
      description:
        'The first characters of the token (`sv_` and four more), to recognise it; the token itself is never shown again.',
    }),
    createdAt: dateTime,
    lastUsedAt: dateTime
      .nullable()
      .openapi({ description: 'When it last authenticated a request (kept to the minute); null: never.' }),
    expiresAt: dateTime.nullable().openapi({ description: 'Null: it does not expire.' }),
  })
  .openapi('ApiToken', { description: 'A workspace (org) token: it acts with its own role, whoever holds it.' });
export type ApiTokenRecord = z.infer<typeof apiTokenRecordSchema>;

export const createdApiTokenSchema = apiTokenRecordSchema
  .extend({
    token: z
      .string()
      .nullable()
      .openapi({
        description:
          'The bearer token, shown in this answer only (only its hash is stored). A replay of the request (same ' +
          '`Idempotency-Key`) answers null: delete that token and create another if it was lost.',
      }),
  })
  .openapi('CreatedApiToken');
export type CreatedApiTokenRecord = z.infer<typeof createdApiTokenSchema>;

export const apiTokenRecordSelect = {
  id: true,
  version: true,
  name: true,
  role: true,
  displayPrefix: true,
  createdAt: true,
  lastUsedAt: true,
  expiresAt: true,
} satisfies Prisma.ApiTokenSelect;
type ApiTokenRow = Prisma.ApiTokenGetPayload<{ select: typeof apiTokenRecordSelect }>;

/** The workspace's live org tokens (revoked ones are gone from the API's view). */
export const liveOrgTokens = (workspaceId: string) =>
  ({ workspaceId, kind: 'org', revokedAt: null }) satisfies Prisma.ApiTokenWhereInput;

/** findOwn's lookup of one of the caller's live org tokens (a revoked one is not found). */
export const tokenLookup: OwnLookup<Pick<PrismaClient, 'apiToken'>, ApiTokenRow> = {
  noun: 'token',
  find: (db, { id, workspaceId }) =>
    db.apiToken.findFirst({ where: { id, ...liveOrgTokens(workspaceId) }, select: apiTokenRecordSelect }),
};

export function toApiTokenRecord(row: ApiTokenRow): ApiTokenRecord {
  return {
    id: row.id,
    version: row.version,
    name: row.name,
    // Org tokens always have a role (the admin CLI and POST /tokens set it).
    role: row.role ?? 'viewer',
    prefix: row.displayPrefix,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    expiresAt: row.expiresAt?.toISOString() ?? null,
  };
}
