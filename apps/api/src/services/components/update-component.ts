import type { PrismaClient } from '@statusvane/shared';
import { shownText } from '@statusvane/shared';
import { z } from '../../schemas/zod.js';
import { changesBetween, claimVersion, recordUpdate } from '../audit/record-write.js';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import {
  componentRecordSelect,
  toComponentRecords,
  type ComponentRecord,
  type ComponentRow,
  componentLookup,
} from './component-record.js';
import { findOwn } from '../records.js';

export const updateComponentSchema = z
  .object({
    name: z.string().trim().min(1).max(120).superRefine(shownText).optional(),
    description: z.string().max(500).superRefine(shownText).optional(),
  })
  .strict()
  .openapi('UpdateComponentInput', { description: 'Only the provided fields change.' });
export type UpdateComponentInput = z.infer<typeof updateComponentSchema>;

/** PATCH /components/{id} (writers): the public name and description; the monitor keeps its own name. */
export async function updateComponent(
  { prisma }: { prisma: PrismaClient },
  { ctx, input: { id, changes } }: { ctx: ServiceContext; input: { id: string; changes: UpdateComponentInput } },
): Promise<ComponentRecord> {
  assertCan(ctx.role, 'components:write');
  const current = await findOwn(prisma, ctx, componentLookup, id);
  const row = await prisma.$transaction(async (tx) => {
    await claimVersion(tx, ctx, 'component', current.id);
    const before = await findOwn(tx, ctx, componentLookup, current.id);
    const after = await tx.component.update({
      where: { id: current.id },
      data: changes,
      select: componentRecordSelect,
    });
    // What this write can change; `status` is what checks observe.
    const edited = (r: ComponentRow) => ({ name: r.name, description: r.description });
    const version = await recordUpdate(tx, ctx, {
      resourceType: 'component',
      resourceId: current.id,
      changes: changesBetween(edited(before), edited(after)),
    });
    return { ...after, version: version ?? after.version };
  });
  return (await toComponentRecords(prisma, ctx, [row]))[0]!;
}
