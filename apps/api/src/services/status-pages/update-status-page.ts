import {
  ConflictError,
  customDomainInputSchema,
  layoutInputSchema,
  RESERVED_SLUGS,
  slugInputSchema,
  STATUS_PAGE_LIMITS,
  type Config,
  type PrismaClient,
  statusPageBrandingFields,
  statusPageNameSchema,
} from '@statusvane/shared';
import { z } from '../../schemas/zod.js';
import { changesBetween, claimVersion, recordUpdate } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { findOwn, isUniqueViolation } from '../records.js';
import { hashPassword } from './password.js';
import { layoutIssues, replaceLayout } from './replace-layout.js';
import type { BodyChecks } from '../validation.js';
import { domainTaken, ownHostIssues } from './set-custom-domain.js';
import {
  BRANDING_DESCRIPTIONS,
  statusPageRecordSelect,
  toStatusPageRecord,
  type StatusPageRecord,
  statusPageLookup,
} from './status-page-record.js';

export const updateStatusPageSchema = z
  .object({
    name: statusPageNameSchema.optional(),
    slug: slugInputSchema
      .optional()
      .openapi({ description: 'Normalised as `vanityUrl` is on create; reserved or taken: 409.' }),
    isPublic: z.boolean().optional(),
    sections: layoutInputSchema.optional().openapi({
      description:
        "Replaces the whole layout: `[{ name, componentIds }]` in render order, components of the page's workspace, each " +
        'at most once. `[]`: every component, ungrouped.',
    }),
    password: z
      .string()
      .min(STATUS_PAGE_LIMITS.passwordMin)
      .max(128)
      .nullable()
      .optional()
      .openapi({ description: 'Write-only. Visitors must type it; null removes it. Any change signs visitors out.' }),
    customDomain: customDomainInputSchema.optional().openapi({
      description:
        'A host name (no scheme, port or path) that also serves the page at its root; null removes it. Another page has ' +
        "it: 409; the service's own host: 400.",
    }),
    logoUrl: statusPageBrandingFields.logoUrl.optional().openapi({ description: BRANDING_DESCRIPTIONS.logoUrl }),
    faviconUrl: statusPageBrandingFields.faviconUrl
      .optional()
      .openapi({ description: BRANDING_DESCRIPTIONS.faviconUrl }),
    brandColor: statusPageBrandingFields.brandColor
      .optional()
      .openapi({ description: BRANDING_DESCRIPTIONS.brandColor }),
    websiteUrl: statusPageBrandingFields.websiteUrl
      .optional()
      .openapi({ description: BRANDING_DESCRIPTIONS.websiteUrl }),
  })
  .strict()
  .openapi('UpdateStatusPageInput', { description: 'Only the provided fields change.' });

export type UpdateStatusPageInput = z.output<typeof updateStatusPageSchema>;

/**
 * PATCH /status-pages/{id}: the layout's components and the domain, judged with the schema (one 400 names every
 * offending field), once the page is found (404 first).
 */
export const updateStatusPageChecks: BodyChecks<
  typeof updateStatusPageSchema,
  { prisma: PrismaClient; config: Pick<Config, 'publicBaseUrl'> }
> = {
  noun: 'status page',
  judge: async (deps, { ctx, params, issues, known }) => {
    await findOwn(deps.prisma, ctx, statusPageLookup, params.id!);
    const layout = known('sections');
    const domain = known('customDomain');
    return [
      ...issues,
      ...(layout ? await layoutIssues(deps.prisma, ctx.workspace.id, layout, 'sections') : []),
      ...(domain !== undefined ? ownHostIssues(deps.config, domain) : []),
    ];
  },
};

/**
 * PATCH /status-pages/{id} (managers): every given field in one transaction, with the page row locked so that a
 * concurrent PATCH or `arrange` applies wholly before or after. A new slug frees the old one at once.
 */
export async function updateStatusPage(
  deps: { prisma: PrismaClient; config: Pick<Config, 'publicBaseUrl'> },
  { ctx, input: { id, changes } }: { ctx: ServiceContext; input: { id: string; changes: UpdateStatusPageInput } },
): Promise<StatusPageRecord> {
  assertCan(ctx.role, 'statusPages:manage');
  const page = await findOwn(deps.prisma, ctx, statusPageLookup, id);
  const { sections, password, slug, customDomain, ...plain } = changes;
  if (slug !== undefined && slug !== page.slug && RESERVED_SLUGS.has(slug))
    throw new ConflictError(`The slug "${slug}" is reserved`, { slug, reason: 'reserved' });
  // Hashed before the transaction: scrypt takes tens of milliseconds, not to be spent holding a row lock.
  const passwordHash = password === undefined ? undefined : password === null ? null : await hashPassword(password);
  try {
    const row = await deps.prisma.$transaction(async (tx) => {
      // The If-Match check, and the row lock that lets a concurrent PATCH or `arrange` apply wholly before or after.
      await claimVersion(tx, ctx, 'status_page', page.id);
      const before = await findOwn(tx, ctx, statusPageLookup, page.id);
      const sectionsBefore = sections !== undefined ? await replaceLayout(tx, page, sections, 'sections') : undefined;
      // Judged here, so that the unique violation caught below can only be the slug's (or a race on the domain).
      if (customDomain && (await tx.statusPage.count({ where: { customDomain, id: { not: page.id } } })) > 0)
        throw domainTaken(customDomain);
      const after = await tx.statusPage.update({
        where: { id: page.id },
        data: {
          ...plain,
          ...(slug !== undefined ? { slug } : {}),
          ...(customDomain !== undefined ? { customDomain } : {}),
          ...(passwordHash !== undefined ? { passwordHash } : {}),
        },
        select: statusPageRecordSelect,
      });
      const url = deps.config.publicBaseUrl;
      const version = await recordUpdate(tx, ctx, {
        resourceType: 'status_page',
        resourceId: page.id,
        changes: changesBetween(
          { ...toStatusPageRecord(before, url), ...(sectionsBefore ? { sections: sectionsBefore } : {}) },
          { ...toStatusPageRecord(after, url), ...(sections !== undefined ? { sections } : {}) },
          passwordHash !== undefined ? { password: [before.passwordHash !== null, passwordHash !== null] } : {},
        ),
      });
      return { ...after, version: version ?? after.version };
    });
    return toStatusPageRecord(row, deps.config.publicBaseUrl);
  } catch (err) {
    if (isUniqueViolation(err)) {
      if (slug === undefined) throw domainTaken(customDomain ?? null);
      throw new ConflictError(`The slug "${slug}" is already taken`, { slug, reason: 'taken' });
    }
    throw err;
  }
}
