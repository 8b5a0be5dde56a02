import { paginationQuerySchema } from '@statusvane/shared';
import { acknowledgeIncident } from '../../services/incidents/acknowledge-incident.js';
import { deleteIncident } from '../../services/incidents/delete-incident.js';
import { escalationStateSchema, getIncidentEscalation } from '../../services/incidents/get-escalation.js';
import { incidentRecordSchema } from '../../services/incidents/incident-record.js';
import { listIncidents } from '../../services/incidents/list-incidents.js';
import { resolveIncident } from '../../services/incidents/resolve-incident.js';
import { defineRoute } from '../define-route.js';

export const incidentRoutes = [
  defineRoute({
    method: 'get',
    path: '/incidents',
    operationId: 'listIncidents',
    roles: 'read',
    tag: 'Incidents',
    summary: 'List incidents',
    description: 'Open and acknowledged incidents plus those resolved in the last 7 days, newest first.',
    request: { query: paginationQuerySchema },
    responses: { 200: { description: 'A page of incidents.', page: incidentRecordSchema } },
    handler: (deps, { ctx, query }) => listIncidents(deps, { ctx, input: query }),
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
