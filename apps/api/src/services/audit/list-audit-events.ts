import {
  paginationQuerySchema,
  singleQueryValue,
  uuidInputSchema,
  type Pagination,
  type Prisma,
  type PrismaClient,
} from '@statusvane/shared';
import { dateTime, z } from '../../schemas/zod.js';
import { assertCan } from '../auth/permissions.js';
import type { ServiceContext } from '../context.js';
import { listPage } from '../records.js';
import { RESOURCE_TYPES } from './record-write.js';

export const auditEventRecordSchema = z
  .object({
    id: z.uuid(),
    at: dateTime,
    actor: z
      .object({
        type: z.enum(['token', 'user', 'cli', 'link']),
        id: z.string().openapi({
          description:
            "The token's id, the user's id, the operating-system user that ran the admin CLI, or for an acknowledge " +
            'or resolve link of a page (`link`): the paged user, else the delivery.',
        }),
        name: z.string().openapi({ description: "The token's name, the user's name or email, or `user@host`." }),
        clientId: z.uuid().optional().openapi({
          description: "A user acting through an app connected over OAuth (`/me/connected-apps`): the app's client id.",
        }),
      })
      .openapi({
        description:
          'Who made the change: an org token, a user (personal or OAuth token), the admin CLI, or a link in a page.',
      }),
    action: z.string().openapi({
      description: '`<resourceType>.<verb>`: `monitor.created`, `status_page.deleted`, `incident.acknowledged` ...',
      example: 'monitor.updated',
    }),
    resourceType: z.enum(RESOURCE_TYPES),
    resourceId: z.uuid(),
    changes: z
      .record(z.string(), z.object({ from: z.unknown(), to: z.unknown() }))
      .optional()
      .openapi({
        description:
          'The fields that changed, as the record shows them (`from: null` on a create, `to: null` on a delete). ' +
          'Secret fields show `"<redacted>"`. Absent when no field changed.',
        example: { intervalSeconds: { from: 60, to: 30 } },
      }),
  })
  .openapi('AuditEvent', { description: 'One successful write through the API or the admin CLI.' });
export type AuditEventRecord = z.infer<typeof auditEventRecordSchema>;

/** GET /audit-events query: pagination and filters, combined with AND. */
export const auditEventListQuerySchema = paginationQuerySchema.extend({
  resourceType: singleQueryValue(z.enum(RESOURCE_TYPES)).optional(),
  resourceId: singleQueryValue(uuidInputSchema).optional(),
  action: singleQueryValue(z.string().min(1).max(100))
    .optional()
    .meta({ description: 'Exact action, such as `monitor.deleted`.' }),
  actorId: singleQueryValue(z.string().min(1).max(100)).optional(),
});
export type AuditEventListQuery = z.output<typeof auditEventListQuerySchema>;

/** GET /audit-events (managers): the workspace's audit events, newest first. */
export async function listAuditEvents(
  { prisma }: { prisma: PrismaClient },
  { ctx, input: query }: { ctx: ServiceContext; input: AuditEventListQuery },
): Promise<{ data: AuditEventRecord[]; pagination: Pagination }> {
  assertCan(ctx.role, 'audit:read');
  const where: Prisma.AuditEventWhereInput = {
    workspaceId: ctx.workspace.id,
    ...(query.resourceType ? { resourceType: query.resourceType } : {}),
    ...(query.resourceId ? { resourceId: query.resourceId } : {}),
    ...(query.action ? { action: query.action } : {}),
    ...(query.actorId ? { actorId: query.actorId } : {}),
  };
  return listPage(
    prisma,
    query,
    (window) => [
      prisma.auditEvent.count({ where }),
      prisma.auditEvent.findMany({ where, orderBy: [{ at: 'desc' }, { seq: 'desc' }], ...window }),
    ],
    (rows) =>
      rows.map((r) => ({
        id: r.id,
        at: r.at.toISOString(),
        actor: {
          type: r.actorType,
          id: r.actorId,
          name: r.actorName,
          ...(r.actorClientId ? { clientId: r.actorClientId } : {}),
        },
        action: r.action,
        resourceType: r.resourceType as AuditEventRecord['resourceType'],
        resourceId: r.resourceId,
        ...(r.changes !== null ? { changes: r.changes as AuditEventRecord['changes'] } : {}),
      })),
  );
}
