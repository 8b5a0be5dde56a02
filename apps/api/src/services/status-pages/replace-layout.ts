import { ValidationError, type Issue, type LayoutInput, type Prisma } from '@statusvane/shared';

/**
 * Replaces a page's whole layout inside the caller's transaction (`[]` clears it: the page shows every component
 * again). The caller holds the page row locked (FOR UPDATE), so concurrent replacements serialise. Components must
 * belong to the page's workspace and appear at most once: one 400 names each offender at `<field>[i].componentIds[j]`.
 * Shared by `PATCH /status-pages/{id}` (`sections`) and the admin CLI's `status-page arrange` (`json`). Returns the
 * layout it replaced, in the same form, for the audit event.
 */
export async function replaceLayout(
  tx: Prisma.TransactionClient,
  page: { id: string; workspaceId: string },
  sections: LayoutInput,
  field: string,
): Promise<LayoutInput> {
  const wanted = [...new Set(sections.flatMap((s) => s.componentIds))];
  const own = new Set(
    (
      await tx.component.findMany({
        where: { workspaceId: page.workspaceId, id: { in: wanted } },
        select: { id: true },
      })
    ).map((c) => c.id),
  );
  const issues: Issue[] = [];
  const seen = new Set<string>();
  sections.forEach((s, i) =>
    s.componentIds.forEach((cid, j) => {
      const path = `${field}[${i}].componentIds[${j}]`;
      if (seen.has(cid)) issues.push({ path, message: 'is already placed: a component appears at most once' });
      else if (!own.has(cid)) issues.push({ path, message: "is not a component of this page's workspace" });
      seen.add(cid);
    }),
  );
  if (issues.length) throw new ValidationError(`Invalid layout: ${issues.map((x) => x.path).join(', ')}`, issues);

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
