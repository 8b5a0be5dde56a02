import type { PrismaClient } from '@statusvane/shared';
import { z } from '../../schemas/zod.js';
import { componentRefSchema } from '../components/component-ref.js';

const layoutSectionSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    components: z.array(componentRefSchema).openapi({ description: 'In render order.' }),
  })
  .openapi('StatusPageSection');

export const statusPageLayoutSchema = z
  .object({
    statusPageId: z.uuid(),
    sections: z.array(layoutSectionSchema).openapi({
      description:
        'In render order. Empty: the page has never been arranged and shows every workspace component, ungrouped.',
    }),
  })
  .openapi('StatusPageLayout');
export type StatusPageLayout = z.infer<typeof statusPageLayoutSchema>;

/**
 * The page's sections and their components, both in render order. Only components of the page's own workspace
 * are listed (arrange refuses others; the filter keeps that true even if a row slipped through).
 */
export async function layoutOf(
  prisma: Pick<PrismaClient, 'statusPageSection'>,
  page: { id: string; workspaceId: string },
): Promise<StatusPageLayout> {
  const sections = await prisma.statusPageSection.findMany({
    where: { statusPageId: page.id },
    orderBy: { position: 'asc' },
    select: {
      id: true,
      name: true,
      components: {
        where: { component: { workspaceId: page.workspaceId } },
        orderBy: { position: 'asc' },
        select: { component: { select: { id: true, name: true } } },
      },
    },
  });
  return {
    statusPageId: page.id,
    sections: sections.map((s) => ({
      id: s.id,
      name: s.name,
      components: s.components.map((c) => ({ id: c.component.id, name: c.component.name })),
    })),
  };
}
