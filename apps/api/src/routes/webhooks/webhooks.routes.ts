import { paginationQuerySchema } from '@statusvane/shared';
import type { ApiDeps } from '../../deps.js';
import { createWebhook } from '../../services/webhooks/create-webhook.js';
import { deleteWebhook } from '../../services/webhooks/delete-webhook.js';
import { getWebhook } from '../../services/webhooks/get-webhook.js';
import { listWebhookDeliveries } from '../../services/webhooks/list-deliveries.js';
import { listWebhooks } from '../../services/webhooks/list-webhooks.js';
import { replayWebhook, replayWebhookSchema } from '../../services/webhooks/replay-webhook.js';
import { updateWebhook } from '../../services/webhooks/update-webhook.js';
import { createWebhookSchema, updateWebhookSchema } from '../../services/webhooks/webhook-input.js';
import {
  createdWebhookRecordSchema,
  webhookDeliveryRecordSchema,
  webhookRecordSchema,
} from '../../services/webhooks/webhook-record.js';
import { defineRoute } from '../define-route.js';

const withKeyring = (deps: ApiDeps) => ({ ...deps, keyring: deps.config.encryption });

export const webhookRoutes = [
  defineRoute({
    method: 'post',
    path: '/webhooks',
    operationId: 'createWebhook',
    roles: 'webhooks:manage',
    tag: 'Events',
    summary: 'Create a webhook',
    description:
      'Sends the events of the log that commit from now on (of `types`, or every type) to `url`: a POST of the CloudEvents ' +
      'JSON event (`Content-Type: application/cloudevents+json`), signed with `Statusvane-Signature: t=<unix>,v1=<hex ' +
      'HMAC-SHA256(secret, "<t>.<body>")>`, with `Statusvane-Delivery: <delivery id>`. At least once: a 2xx answer is a ' +
      'delivery, any other answer (4xx included) or a timeout of 10 s is retried with exponential backoff for 24 hours; a ' +
      'receiver drops an event id it has already handled. The `secret` is in this answer only (a replay of the same ' +
      '`Idempotency-Key` answers `secret: null`). The URL must pass the SSRF guard (400).',
    request: {
      body: {
        schema: createWebhookSchema,
        examples: {
          incidents: {
            summary: 'Incidents only',
            value: {
              url: 'https://hooks.example.com/statusvane',
              types: ['incident.opened', 'incident.resolved'],
              description: 'On-call bot',
            },
          },
        },
      },
    },
    idempotent: true,
    responses: {
      201: { description: 'The webhook, with its signing secret (shown once).', data: createdWebhookRecordSchema },
      409: {
        description: 'a request with the same `Idempotency-Key` is still in flight.',
        example: 'A request with this Idempotency-Key is still in progress; retry shortly',
      },
    },
    handler: (deps, { ctx, body }) => createWebhook(withKeyring(deps), { ctx, input: body }),
  }),
  defineRoute({
    method: 'get',
    path: '/webhooks',
    operationId: 'listWebhooks',
    roles: 'webhooks:manage',
    tag: 'Events',
    summary: 'List webhooks',
    description: "The workspace's webhooks, oldest first (URLs redacted, secrets never shown).",
    request: { query: paginationQuerySchema },
    responses: { 200: { description: 'A page of webhooks.', page: webhookRecordSchema } },
    handler: (deps, { ctx, query }) => listWebhooks(deps, { ctx, input: query }),
  }),
  defineRoute({
    method: 'get',
    path: '/webhooks/{id}',
    operationId: 'getWebhook',
    roles: 'webhooks:manage',
    tag: 'Events',
    summary: 'Get a webhook',
    description: 'The webhook (URL redacted, secret never shown).',
    responses: { 200: { description: 'The webhook.', data: webhookRecordSchema } },
    handler: (deps, { ctx, params }) => getWebhook(deps, { ctx, input: params }),
  }),
  defineRoute({
    method: 'patch',
    path: '/webhooks/{id}',
    operationId: 'updateWebhook',
    roles: 'webhooks:manage',
    tag: 'Events',
    summary: 'Update a webhook',
    description:
      'Only the given fields change. A new `url` passes the SSRF guard (400); deliveries not yet sent go to it. New `types` ' +
      'apply to events not yet dispatched.',
    request: {
      body: {
        schema: updateWebhookSchema,
        examples: { types: { summary: 'Every type', value: { types: [] } } },
      },
    },
    responses: { 200: { description: 'The updated webhook.', data: webhookRecordSchema } },
    handler: (deps, { ctx, params, body }) =>
      updateWebhook(withKeyring(deps), { ctx, input: { id: params.id, changes: body } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/webhooks/{id}',
    operationId: 'deleteWebhook',
    roles: 'webhooks:manage',
    tag: 'Events',
    summary: 'Delete a webhook',
    description: 'Nothing more is sent to it; its delivery history goes with it.',
    responses: { 204: { description: 'Deleted.' } },
    handler: (deps, { ctx, params }) => deleteWebhook(deps, { ctx, input: params }),
  }),
  defineRoute({
    method: 'get',
    path: '/webhooks/{id}/deliveries',
    operationId: 'listWebhookDeliveries',
    roles: 'webhooks:manage',
    tag: 'Events',
    summary: 'List deliveries of a webhook',
    description:
      'The delivery history (kept 30 days), newest first: each event sent, its status (`pending`, `sent`, `failed`), ' +
      'attempts, the last answer and when it is tried next.',
    request: { query: paginationQuerySchema },
    responses: { 200: { description: 'A page of deliveries.', page: webhookDeliveryRecordSchema } },
    handler: (deps, { ctx, params, query }) => listWebhookDeliveries(deps, { ctx, input: { id: params.id, query } }),
  }),
  defineRoute({
    method: 'post',
    path: '/webhooks/{id}/replay',
    operationId: 'replayWebhook',
    roles: 'webhooks:manage',
    tag: 'Events',
    summary: 'Replay events to a webhook',
    description:
      "Sends again every event after `after` (a `nextCursor` of GET /events or an event's `sequence`) of the webhook's " +
      'types, as new deliveries marked `replay`, within seconds; then the live stream goes on. A consumer that was down ' +
      'replays from the last event it handled. `after` that is not a cursor: 400.',
    request: {
      body: {
        schema: replayWebhookSchema,
        examples: { from: { summary: 'From an event', value: { after: '000000000000a1b2000000000000003f' } } },
      },
    },
    responses: { 200: { description: 'The webhook; the replay is under way.', data: webhookRecordSchema } },
    handler: (deps, { ctx, params, body }) => replayWebhook(deps, { ctx, input: { id: params.id, ...body } }),
  }),
];
