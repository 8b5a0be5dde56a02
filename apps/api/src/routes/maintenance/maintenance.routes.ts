import { createMaintenanceSchema, updateMaintenanceSchema } from '@statusvane/shared';
import { createMaintenance, createMaintenanceChecks } from '../../services/maintenance/create-maintenance.js';
import { deleteMaintenance } from '../../services/maintenance/delete-maintenance.js';
import { getMaintenance } from '../../services/maintenance/get-maintenance.js';
import { listMaintenance, maintenanceListQuerySchema } from '../../services/maintenance/list-maintenance.js';
import { maintenanceRecordSchema } from '../../services/maintenance/maintenance-record.js';
import { updateMaintenance, updateMaintenanceChecks } from '../../services/maintenance/update-maintenance.js';
import { defineRoute } from '../define-route.js';

export const maintenanceRoutes = [
  defineRoute({
    method: 'post',
    path: '/maintenance',
    operationId: 'createMaintenanceWindow',
    roles: 'statusPages:manage',
    tag: 'Maintenance',
    summary: 'Create a maintenance window',
    description:
      "Opens a maintenance window and publishes its notice on the workspace's status pages. `endsAt` must be after `startsAt`; " +
      'a missing title or an end not after the start is 400, as are unknown component ids. With `Idempotency-Key` a retry ' +
      'replays the first answer instead of opening a second window.',
    request: {
      body: {
        schema: createMaintenanceSchema,
        checks: createMaintenanceChecks,
        examples: {
          deploy: {
            summary: 'A release window over the whole workspace',
            value: {
              title: 'Release 4.2',
              body: 'We are deploying a new version; short interruptions are possible.',
              startsAt: '2026-03-01T22:00:00Z',
              endsAt: '2026-03-01T23:00:00Z',
            },
          },
        },
      },
    },
    idempotent: true,
    responses: {
      201: { description: 'The created window.', data: maintenanceRecordSchema },
      409: {
        description: 'a request with the same `Idempotency-Key` is still in flight.',
        example: 'A request with this Idempotency-Key is still in progress; retry shortly',
      },
    },
    handler: (deps, { ctx, body }) => createMaintenance(deps, { ctx, input: body }),
  }),
  defineRoute({
    method: 'get',
    path: '/maintenance',
    operationId: 'listMaintenanceWindows',
    roles: 'read',
    tag: 'Maintenance',
    summary: 'List maintenance windows',
    description:
      "A page of the workspace's windows, newest `startsAt` first. Filters (AND): `state` (a comma list of the states " +
      'the record shows, judged now), `componentId` (windows naming it, and whole-workspace ones), `activeAt` (windows ' +
      'in progress at that instant). An invalid value or an unknown parameter is 400.',
    request: { query: maintenanceListQuerySchema },
    responses: { 200: { description: 'A page of maintenance windows.', page: maintenanceRecordSchema } },
    handler: (deps, { ctx, query }) => listMaintenance(deps, { ctx, input: query }),
  }),
  defineRoute({
    method: 'get',
    path: '/maintenance/{id}',
    operationId: 'getMaintenanceWindow',
    roles: 'read',
    tag: 'Maintenance',
    summary: 'Get a maintenance window',
    description: 'Title, public message, time range, current phase and affected components.',
    responses: { 200: { description: 'The window.', data: maintenanceRecordSchema } },
    handler: (deps, { ctx, params }) => getMaintenance(deps, { ctx, input: params }),
  }),
  defineRoute({
    method: 'patch',
    path: '/maintenance/{id}',
    operationId: 'updateMaintenanceWindow',
    roles: 'statusPages:manage',
    tag: 'Maintenance',
    summary: 'Update, start, complete or cancel a maintenance window',
    description:
      'Only the provided fields change; extending a running window is done by sending `endsAt` alone, and the original message ' +
      'survives. `status` is an action: `start` (from `scheduled`) begins the window now, `complete` (from `in_progress`) ends it ' +
      'now, `cancel` (from `scheduled` or `in_progress`) calls it off and keeps it on the public record. Repeating the action the ' +
      'window is already in is a no-op 200. A PATCH may not leave `endsAt` at or before `startsAt` (400).',
    request: {
      body: {
        schema: updateMaintenanceSchema,
        checks: updateMaintenanceChecks,
        examples: {
          extend: { summary: 'Extend a running window', value: { endsAt: '2026-03-01T23:30:00+00:00' } },
          complete: { summary: 'The release is done', value: { status: 'complete' } },
        },
      },
    },
    responses: {
      200: { description: 'The updated window.', data: maintenanceRecordSchema },
      409: {
        description:
          'the action is not allowed from the current state (out of `completed` or `cancelled`, or `complete` on a `scheduled` window).',
        example: 'A completed maintenance window cannot be started',
      },
    },
    handler: (deps, { ctx, params, body }) => updateMaintenance(deps, { ctx, input: { id: params.id, changes: body } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/maintenance/{id}',
    operationId: 'deleteMaintenanceWindow',
    roles: 'statusPages:manage',
    tag: 'Maintenance',
    summary: 'Delete a maintenance window',
    description:
      'Removes the window from the status pages, feeds and lists at once (`status: cancel` calls it off but keeps it on the ' +
      'public record). A window deleted while scheduled or in progress is called off as a cancel is: the event log records ' +
      '`maintenance.cancelled`, and the monitors it covered leave maintenance at once.',
    responses: { 204: { description: 'Deleted; no body.' } },
    handler: (deps, { ctx, params }) => deleteMaintenance(deps, { ctx, input: params }),
  }),
];
