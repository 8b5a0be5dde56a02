import type { Prisma, PrismaClient } from '@statusvane/shared';
import { dateTime, versionSchema, z } from '../../schemas/zod.js';
import type { OwnLookup } from '../records.js';

export const statusPageRecordSchema = z
  .object({
    id: z.uuid(),
    ref: z.string().nullable().openapi({
      description: 'The name a workspace document (`POST /config/apply`) manages the page by; null: not managed.',
    }),
    version: versionSchema,
    name: z.string(),
    slug: z.string(),
    url: z.url().openapi({
      description:
        'The public page: `<PUBLIC_BASE_URL>/status/<slug>` (HTML, or JSON with `Accept: application/json`).',
    }),
    isPublic: z.boolean().openapi({ description: 'A page that is not public is not served (404).' }),
    passwordProtected: z.boolean(),
    customDomain: z.string().nullable().openapi({
      description: 'A host name that also serves the page at its root (a CNAME to this deployment), or null.',
    }),
    createdAt: dateTime,
  })
  .openapi('StatusPage');
export type StatusPageRecord = z.infer<typeof statusPageRecordSchema>;

export const statusPageRecordSelect = {
  id: true,
  ref: true,
  version: true,
  workspaceId: true,
  name: true,
  slug: true,
  isPublic: true,
  passwordHash: true,
  customDomain: true,
  createdAt: true,
} satisfies Prisma.StatusPageSelect;

export type StatusPageRow = Prisma.StatusPageGetPayload<{ select: typeof statusPageRecordSelect }>;

/** findOwn's lookup of one of the caller's status pages. */
export const statusPageLookup: OwnLookup<Pick<PrismaClient, 'statusPage'>, StatusPageRow> = {
  noun: 'status page',
  find: (db, where) => db.statusPage.findFirst({ where, select: statusPageRecordSelect }),
};

/** The public URL of a page: `<PUBLIC_BASE_URL>/status/<slug>`. */
export function statusPageUrl(publicBaseUrl: string, slug: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/status/${slug}`;
}

/** The status page record. The password hash never leaves the service: only whether there is one. */
export function toStatusPageRecord(row: StatusPageRow, publicBaseUrl: string): StatusPageRecord {
  return {
    id: row.id,
    ref: row.ref,
    version: row.version,
    name: row.name,
    slug: row.slug,
    url: statusPageUrl(publicBaseUrl, row.slug),
    isPublic: row.isPublic,
    passwordProtected: row.passwordHash !== null,
    customDomain: row.customDomain,
    createdAt: row.createdAt.toISOString(),
  };
}
