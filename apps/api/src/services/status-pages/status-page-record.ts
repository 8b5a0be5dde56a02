import type { Prisma } from '@statusvane/shared';

export const statusPageRecordSelect = {
  id: true,
  workspaceId: true,
  name: true,
  slug: true,
  isPublic: true,
  passwordHash: true,
  createdAt: true,
} satisfies Prisma.StatusPageSelect;

export type StatusPageRow = Prisma.StatusPageGetPayload<{ select: typeof statusPageRecordSelect }>;

/** The public URL of a page: `<PUBLIC_BASE_URL>/status/<slug>`. */
export function statusPageUrl(publicBaseUrl: string, slug: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/status/${slug}`;
}

/** The status page record. The password hash never leaves the service: only whether there is one. */
export function toStatusPageRecord(row: StatusPageRow, publicBaseUrl: string) {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    url: statusPageUrl(publicBaseUrl, row.slug),
    isPublic: row.isPublic,
    passwordProtected: row.passwordHash !== null,
    createdAt: row.createdAt.toISOString(),
  };
}
export type StatusPageRecord = ReturnType<typeof toStatusPageRecord>;
