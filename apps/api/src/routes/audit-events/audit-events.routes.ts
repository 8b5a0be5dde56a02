import {
  auditEventListQuerySchema,
  auditEventRecordSchema,
  listAuditEvents,
} from '../../services/audit/list-audit-events.js';
import { defineRoute } from '../define-route.js';

export const auditEventRoutes = [
  defineRoute({
    method: 'get',
    path: '/audit-events',
    operationId: 'listAuditEvents',
    roles: 'audit:read',
    tag: 'Audit events',
    summary: 'List audit events',
    description:
      'Who changed what: one event per successful write through the API or the admin CLI, recorded in the same ' +
      'transaction as the write, newest first. Filters (AND, exact values): `resourceType`, `resourceId`, `action`, ' +
      '`actorId`. What checks observe (status, incidents a monitor opens) is not recorded.',
    request: { query: auditEventListQuerySchema },
    responses: { 200: { description: 'A page of audit events.', page: auditEventRecordSchema } },
    handler: (deps, { ctx, query }) => listAuditEvents(deps, { ctx, input: query }),
  }),
];
