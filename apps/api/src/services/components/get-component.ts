import type { PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { findOwnComponent, toComponentRecords, type ComponentRecord } from './component-record.js';

/** GET /components/{id}. */
export async function getComponent(
  { prisma }: { prisma: PrismaClient },
  { ctx, input: { id } }: { ctx: ServiceContext; input: { id: string } },
): Promise<ComponentRecord> {
  return (await toComponentRecords(prisma, ctx, [await findOwnComponent(prisma, ctx, id)]))[0]!;
}
