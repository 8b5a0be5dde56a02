import { statusPageUrl, type Prisma, type PrismaClient } from '@statusvane/shared';
import { dateTime, versionSchema, z } from '../../schemas/zod.js';
import type { OwnLookup } from '../records.js';

/** What each branding field does, for the record and the write schemas alike. */
export const BRANDING_DESCRIPTIONS = {
  logoUrl:
    'An https URL of the logo shown in the page header (alt text: the page name), linking to `websiteUrl`; null: the ' +
    "name alone. Linked, not proxied: visitors' browsers load it from there.",
  faviconUrl: "An https URL of the page's favicon; null: Statusvane's. Linked, not proxied.",
  brandColor:
    '`#rrggbb`: the header accent, links and buttons. Where it reads at under 4.5:1 against the page background ' +
    '(light or dark), a darker or lighter shade of it is used instead. null: the default blue.',
  websiteUrl: 'The company website (http or https) the logo and a header link go back to; null: none.',
} as const;

const BRANDING_RECORD_FIELDS = {
  logoUrl: z.string().nullable().openapi({ description: BRANDING_DESCRIPTIONS.logoUrl }),
  faviconUrl: z.string().nullable().openapi({ description: BRANDING_DESCRIPTIONS.faviconUrl }),
  brandColor: z.string().nullable().openapi({ description: BRANDING_DESCRIPTIONS.brandColor }),
  websiteUrl: z.string().nullable().openapi({ description: BRANDING_DESCRIPTIONS.websiteUrl }),
};

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
    ...BRANDING_RECORD_FIELDS,
    createdAt: dateTime,
  })
  .openapi('StatusPage');
export type StatusPageRecord = z.infer<typeof statusPageRecordSchema>;

/** A page's branding columns (the record, the public page, config as code). */
export const brandingSelect = { logoUrl: true, faviconUrl: true, brandColor: true, websiteUrl: true } as const;

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
  ...brandingSelect,
  createdAt: true,
} satisfies Prisma.StatusPageSelect;

export type StatusPageRow = Prisma.StatusPageGetPayload<{ select: typeof statusPageRecordSelect }>;

/** findOwn's lookup of one of the caller's status pages. */
export const statusPageLookup: OwnLookup<Pick<PrismaClient, 'statusPage'>, StatusPageRow> = {
  noun: 'status page',
  find: (db, where) => db.statusPage.findFirst({ where, select: statusPageRecordSelect }),
};

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
    logoUrl: row.logoUrl,
    faviconUrl: row.faviconUrl,
    brandColor: row.brandColor,
    websiteUrl: row.websiteUrl,
    createdAt: row.createdAt.toISOString(),
  };
}
