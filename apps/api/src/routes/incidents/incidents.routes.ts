import { incidentUpdateInputSchema, manualIncidentInputSchema } from '@statusvane/shared';
import { acknowledgeIncident } from '../../services/incidents/acknowledge-incident.js';
import { createIncidentUpdate } from '../../services/incidents/create-incident-update.js';
import { createManualIncident, manualIncidentChecks } from '../../services/incidents/create-manual-incident.js';
import { deleteIncident } from '../../services/incidents/delete-incident.js';
import { escalationStateSchema, getIncidentEscalation } from '../../services/incidents/get-escalation.js';
import { getIncident } from '../../services/incidents/get-incident.js';
import { incidentRecordSchema, manualIncidentRecordSchema } from '../../services/incidents/incident-record.js';
import { incidentUpdateRecordSchema } from '../../services/incidents/incident-update-record.js';
import { listIncidentUpdates } from '../../services/incidents/list-incident-updates.js';
import { incidentListQuerySchema, listIncidents } from '../../services/incidents/list-incidents.js';
import { resolveIncident } from '../../services/incidents/resolve-incident.js';
import { z } from '../../schemas/zod.js';
import { defineRoute } from '../define-route.js';

export const incidentRoutes = [
  defineRoute({
    method: 'post',
    path: '/incidents',
    operationId: 'createIncident',
    roles: 'incidents:respond',
    tag: 'Incidents',
    summary: 'Open a manual incident',
    description:
      '`source: "manual"`, affecting `componentIds` (none: the whole workspace, shown on every status page); `message`, when ' +
      'given, is its first update (`investigating`). An unknown, foreign or repeated component id is a 400 at `componentIds[i]`.',
    request: {
      body: {
        schema: manualIncidentInputSchema,
        checks: manualIncidentChecks,
        examples: {
          outage: {
            summary: 'An outage of one component',
            value: {
              title: 'Email delivery delayed',
              impact: 'minor',
              componentIds: ['3f0c6b1e-8a52-4d7e-9b1a-2c4d5e6f7a8b'],
              message: 'Outbound mail is queued; we are investigating.',
            },
          },
        },
      },
    },
    idempotent: true,
    responses: {
      201: { description: 'The created incident.', data: manualIncidentRecordSchema },
      409: {
        description: 'a request with the same `Idempotency-Key` is still in flight.',
        example: 'A request with this Idempotency-Key is still in progress',
      },
    },
    handler: (deps, { ctx, body }) => createManualIncident(deps, { ctx, input: body }),
  }),
  defineRoute({
    method: 'post',
    path: '/incidents/{id}/updates',
    operationId: 'createIncidentUpdate',
    roles: 'incidents:respond',
    tag: 'Incidents',
    summary: 'Post an incident update',
    description:
      "Adds a message to the incident's timeline (shown on status pages and sent to their subscribers). A `resolved` update " +
      'resolves the incident as `POST /incidents/{id}/resolve` does; an update after resolution is a note and does not reopen it.',
    request: {
      body: {
        schema: incidentUpdateInputSchema,
        examples: {
          identified: {
            summary: 'Cause found',
            value: { status: 'identified', message: 'A bad deploy; rolling back.' },
          },
        },
      },
    },
    idempotent: true,
    responses: {
      201: { description: 'The created update.', data: incidentUpdateRecordSchema },
      409: {
        description: 'a request with the same `Idempotency-Key` is still in flight.',
        example: 'A request with this Idempotency-Key is still in progress',
      },
    },
    handler: (deps, { ctx, params, body }) =>
      createIncidentUpdate(deps, { ctx, input: { id: params.id, update: body } }),
  }),
  defineRoute({
    method: 'get',
    path: '/incidents/{id}/updates',
    operationId: 'listIncidentUpdates',
    roles: 'read',
    tag: 'Incidents',
    summary: "List an incident's updates",
    description: 'Every update of the incident, oldest first (not paginated).',
    responses: { 200: { description: 'The updates.', data: z.array(incidentUpdateRecordSchema) } },
    handler: (deps, { ctx, params }) => listIncidentUpdates(deps, { ctx, input: params }),
  }),
  defineRoute({
    method: 'get',
    path: '/incidents',
    operationId: 'listIncidents',
    roles: 'read',
    tag: 'Incidents',
    summary: 'List incidents',
    description:
      'Newest first. Without filters: open and acknowledged incidents plus those resolved in the last 7 days. With ' +
      '`status`, `monitorId`, `startedAfter` or `startedBefore` (combined with AND), every incident kept that matches, ' +
      'however old. An invalid value or an unknown parameter is 400.',
    request: { query: incidentListQuerySchema },
    responses: { 200: { description: 'A page of incidents.', page: incidentRecordSchema } },
    handler: (deps, { ctx, query }) => listIncidents(deps, { ctx, input: query }),
  }),
  defineRoute({
    method: 'get',
    path: '/incidents/{id}',
    operationId: 'getIncident',
    roles: 'read',
    tag: 'Incidents',
    summary: 'Get an incident',
    description: 'The incident record, as the list shows it, whatever its age or status.',
    responses: { 200: { description: 'The incident.', data: incidentRecordSchema } },
    handler: (deps, { ctx, params }) => getIncident(deps, { ctx, input: params }),
  }),
  defineRoute({
    method: 'get',
    path: '/incidents/{id}/escalation',
    operationId: 'getIncidentEscalation',
    roles: 'read',
    tag: 'Incidents',
    summary: 'Get the escalation state of an incident',
    description:
      "The policy in effect (pinned when the incident opened: the monitor's own, else the workspace default), each ladder " +
      'step, which steps have paged and through which delivery (with the reason of a failed or skipped one), and whether ' +
      'the incident is acknowledged.',
    responses: { 200: { description: 'The escalation state.', data: escalationStateSchema } },
    handler: (deps, { ctx, params }) => getIncidentEscalation(deps, { ctx, input: params }),
  }),
  defineRoute({
    method: 'post',
    path: '/incidents/{id}/acknowledge',
    operationId: 'acknowledgeIncident',
    roles: 'incidents:respond',
    tag: 'Incidents',
    summary: 'Acknowledge an incident',
    description:
      'Marks the incident acknowledged and stops its escalation ladder: no further step pages. Acknowledging an acknowledged ' +
      'incident is a no-op 200. No request body.',
    responses: {
      200: { description: 'The acknowledged incident.', data: incidentRecordSchema },
      409: { description: 'the incident is already resolved.', example: 'A resolved incident cannot be acknowledged' },
    },
    handler: (deps, { ctx, params }) => acknowledgeIncident(deps, { ctx, input: params }),
  }),
  defineRoute({
    method: 'post',
    path: '/incidents/{id}/resolve',
    operationId: 'resolveIncident',
    roles: 'incidents:respond',
    tag: 'Incidents',
    summary: 'Resolve an incident',
    description:
      'Marks the incident resolved and stops its escalation ladder. For a monitor incident, a new incident needs `openThreshold` ' +
      'fresh failures. Resolving a resolved incident is a no-op 200. No request body.',
    responses: { 200: { description: 'The resolved incident.', data: incidentRecordSchema } },
    handler: (deps, { ctx, params }) => resolveIncident(deps, { ctx, input: params }),
  }),
  defineRoute({
    method: 'delete',
    path: '/incidents/{id}',
    operationId: 'deleteIncident',
    roles: 'incidents:delete',
    tag: 'Incidents',
    summary: 'Delete an incident',
    description:
      "Permanently deletes one of the workspace's own incidents. For a monitor incident the monitor's flap state is reset: a new " +
      'incident needs `openThreshold` fresh failures.',
    responses: { 204: { description: 'Deleted; no body.' } },
    handler: (deps, { ctx, params }) => deleteIncident(deps, { ctx, input: params }),
  }),
];
