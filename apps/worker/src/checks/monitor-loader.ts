import { createBatchLoader, type BatchLoader, type Prisma, type PrismaClient } from '@statusvane/shared';

type Row<S extends Prisma.MonitorSelect> = Prisma.MonitorGetPayload<{ select: S }>;

const loaders = new WeakMap<PrismaClient, WeakMap<Prisma.MonitorSelect, BatchLoader<string, unknown>>>();

/**
 * `findUnique` by id, with the reads of concurrent checks that are ready in the same event-loop turn sent as one
 * query (Prisma batches findUniques only within one tick, which concurrent jobs rarely share). Still one fresh read
 * per check: nothing is cached.
 */
export async function loadMonitor<S extends Prisma.MonitorSelect>(
  prisma: PrismaClient,
  id: string,
  select: S,
): Promise<Row<S> | null> {
  let bySelect = loaders.get(prisma);
  if (!bySelect) loaders.set(prisma, (bySelect = new WeakMap()));
  let loader = bySelect.get(select);
  if (!loader) {
    loader = createBatchLoader<string, unknown>(async (ids) => {
      const query = { where: { id: { in: ids } }, select: { ...select, id: true } } as Prisma.MonitorFindManyArgs;
      const rows = (await prisma.monitor.findMany(query)) as Array<{ id: string }>;
      return new Map(rows.map((r) => [r.id, r]));
    });
    bySelect.set(select, loader);
  }
  return ((await loader.load(id)) as Row<S> | undefined) ?? null;
}
