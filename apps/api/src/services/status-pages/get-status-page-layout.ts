import type { PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { findOwn } from '../records.js';
import { statusPageLookup } from './status-page-record.js';
import { layoutOf, type StatusPageLayout } from './status-page-layout-record.js';

/** GET /status-pages/{id}/layout: `sections: []` until the page is arranged. */
export async function getStatusPageLayout(
  deps: { prisma: PrismaClient },
  { ctx, input: { id } }: { ctx: ServiceContext; input: { id: string } },
): Promise<StatusPageLayout> {
  const page = await findOwn(deps.prisma, ctx, statusPageLookup, id);
  return layoutOf(deps.prisma, page);
}
