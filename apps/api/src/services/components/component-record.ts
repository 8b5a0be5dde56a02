import { maintenanceUntilByComponent, type Prisma, type PrismaClient } from '@statusvane/shared';
import { versionSchema, z } from '../../schemas/zod.js';
import type { RequestContext } from '../auth/context.js';
import type { OwnLookup } from '../records.js';
import { componentState } from '../status-pages/public-page.js';

export const COMPONENT_STATES = ['pending', 'up', 'degraded', 'down', 'paused', 'maintenance'] as const;

export const componentRecordSchema = z
  .object({
    id: z.uuid(),
    version: versionSchema,
    name: z.string().openapi({ description: "Follows the monitor's name until changed here." }),
    description: z.string().openapi({ description: 'Shown under the name on status pages; "" when none.' }),
    monitorId: z.uuid().nullable().openapi({ description: 'The monitor that owns the component.' }),
    status: z.enum(COMPONENT_STATES).openapi({
      description:
        'What status pages show: `maintenance` while a window covers it, `paused`, else the last check state.',
    }),
  })
  .openapi('Component');
export type ComponentRecord = z.infer<typeof componentRecordSchema>;

export const componentRecordSelect = {
  id: true,
  version: true,
  name: true,
  description: true,
  monitor: { select: { id: true, enabled: true, status: true } },
} satisfies Prisma.ComponentSelect;
export type ComponentRow = Prisma.ComponentGetPayload<{ select: typeof componentRecordSelect }>;

/** Records for rows of the caller's workspace, with their maintenance state read once at `now`. */
export async function toComponentRecords(
  prisma: PrismaClient,
  ctx: RequestContext & { now: Date },
  rows: ComponentRow[],
): Promise<ComponentRecord[]> {
  const until = await maintenanceUntilByComponent(
    prisma,
    ctx.workspace.id,
    rows.map((r) => r.id),
    ctx.now,
  );
  return rows.map((r) => ({
    id: r.id,
    version: r.version,
    name: r.name,
    description: r.description,
    monitorId: r.monitor?.id ?? null,
    status: componentState(r.monitor, until.has(r.id)),
  }));
}

/** findOwn's lookup of one of the caller's components. */
export const componentLookup: OwnLookup<Pick<PrismaClient, 'component'>, ComponentRow> = {
  noun: 'component',
  find: (db, where) => db.component.findFirst({ where, select: componentRecordSelect }),
};
