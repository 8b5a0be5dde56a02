import { NotFoundError, type PrismaClient } from '@statusvane/shared';
import { z } from '../../openapi/zod.js';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import {
  componentRecordSelect,
  findOwnComponent,
  toComponentRecords,
  type ComponentRecord,
} from './component-record.js';

export const updateComponentSchema = z
  .object({
    name: z.string().trim().min(1).max(120).optional(),
    description: z.string().max(500).optional(),
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
  const current = await findOwnComponent(prisma, ctx, id);
  const { count } = await prisma.component.updateMany({
    where: { id: current.id, workspaceId: ctx.workspace.id },
    data: changes,
  });
  if (count === 0) throw new NotFoundError('component', id);
  const row = await prisma.component.findFirstOrThrow({ where: { id: current.id }, select: componentRecordSelect });
  return (await toComponentRecords(prisma, ctx, [row]))[0]!;
}
