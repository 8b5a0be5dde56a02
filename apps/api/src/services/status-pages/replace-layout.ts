import type { LayoutInput, Prisma, PrismaClient } from '@statusvane/shared';
import { componentIdIssues } from '../components/own-components.js';
import { failWith } from '../validation.js';

/** The issues of a layout's components (foreign, unknown, placed twice), each at `<field>[i].componentIds[j]`. */
export function layoutIssues(
  prisma: Pick<PrismaClient, 'component'>,
  workspaceId: string,
  sections: LayoutInput,
  field: string,
) {
  const ids = sections.flatMap((s, i) =>
    s.componentIds.map((id, j) => ({ id, path: `${field}[${i}].componentIds[${j}]` })),
  );
  return componentIdIssues(prisma, workspaceId, ids);
}

/**
 * Replaces a page's whole layout inside the caller's transaction (`[]` clears it: the page shows every component
 * again). The caller holds the page row locked (FOR UPDATE), so concurrent replacements serialise. Components must
 * belong to the page's workspace and appear at most once: one 400 names each offender (layoutIssues; judged again
 * here, in the write, even when the caller judged them before). Shared by `PATCH /status-pages/{id}` (`sections`)
 * and the admin CLI's `status-page arrange` (`json`). Returns the layout it replaced, in the same form, for the
 * audit event.
 */
export async function replaceLayout(
  tx: Prisma.TransactionClient,
  page: { id: string; workspaceId: string },
  sections: LayoutInput,
  field: string,
): Promise<LayoutInput> {
  const issues = await layoutIssues(tx, page.workspaceId, sections, field);
  if (issues.length) failWith('layout', issues);

  const previous = await tx.statusPageSection.findMany({
    where: { statusPageId: page.id },
    orderBy: { position: 'asc' },
    select: { name: true, components: { orderBy: { position: 'asc' }, select: { componentId: true } } },
  });
  await tx.statusPageSection.deleteMany({ where: { statusPageId: page.id } });
  for (const [position, s] of sections.entries()) {
    await tx.statusPageSection.create({
      data: {
        statusPageId: page.id,
        name: s.name,
        position,
        components: { create: s.componentIds.map((componentId, p) => ({ componentId, position: p })) },
      },
    });
  }
  return previous.map((x) => ({ name: x.name, componentIds: x.components.map((c) => c.componentId) }));
}
