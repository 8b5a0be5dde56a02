import type { PrismaClient } from '@statusvane/shared';
import type { ServiceContext } from '../context.js';
import { toComponentRecords, type ComponentRecord, componentLookup } from './component-record.js';
import { findOwn } from '../records.js';

/** GET /components/{id}. */
export async function getComponent(
  { prisma }: { prisma: PrismaClient },
  { ctx, input: { id } }: { ctx: ServiceContext; input: { id: string } },
): Promise<ComponentRecord> {
  return (await toComponentRecords(prisma, ctx, [await findOwn(prisma, ctx, componentLookup, id)]))[0]!;
}
