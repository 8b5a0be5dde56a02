import { createStatusPageSchema, paginationQuerySchema, RESERVED_SLUGS } from '@statusvane/shared';
import { createStatusPage } from '../../services/status-pages/create-status-page.js';
import { getStatusPageLayout, statusPageLayoutSchema } from '../../services/status-pages/get-status-page-layout.js';
import { statusPageRecordSchema } from '../../services/status-pages/status-page-record.js';
import { deleteSubscriber } from '../../services/subscribers/delete-subscriber.js';
import { listSubscribers } from '../../services/subscribers/list-subscribers.js';
import { subscriberRecordSchema } from '../../services/subscribers/subscriber-record.js';
import { defineRoute } from '../define-route.js';

export const statusPageRoutes = [
  defineRoute({
    method: 'post',
    path: '/status-pages',
    operationId: 'createStatusPage',
    roles: 'statusPages:manage',
    tag: 'Status pages',
    summary: 'Create a status page',
    description:
      '`vanityUrl` is normalised to the slug (see the body schema). A reserved slug (' +
      [...RESERVED_SLUGS].map((slug) => `\`${slug}\``).join(', ') +
      ') or one already taken by any workspace is 409.',
    request: {
      body: {
        schema: createStatusPageSchema,
        examples: {
          page: {
            summary: 'A public page',
            value: { vanityUrl: 'https://status.acme.com', name: 'Acme status', isPublic: true },
          },
        },
      },
    },
    idempotent: true,
    responses: {
      201: { description: 'The created page.', data: statusPageRecordSchema },
      409: {
        description:
          'the slug is reserved or already taken, or a request with the same `Idempotency-Key` is still in flight.',
        example: 'The slug acme-status is already taken',
      },
    },
    handler: (deps, { ctx, body }) => createStatusPage(deps, { ctx, input: body }),
  }),
  defineRoute({
    method: 'get',
    path: '/status-pages/{id}/layout',
    operationId: 'getStatusPageLayout',
    roles: 'read',
    tag: 'Status pages',
    summary: 'Get a status page layout',
    description:
      "The page's sections in render order, each with its components in render order. An empty `sections` array means the page " +
      'has never been arranged and shows every workspace component, ungrouped.',
    responses: { 200: { description: 'The layout.', data: statusPageLayoutSchema } },
    handler: (deps, { ctx, params }) => getStatusPageLayout(deps, { ctx, input: params }),
  }),
  defineRoute({
    method: 'get',
    path: '/status-pages/{id}/subscribers',
    operationId: 'listStatusPageSubscribers',
    roles: 'statusPages:manage',
    tag: 'Status pages',
    summary: "List a status page's subscribers",
    description:
      'Email and webhook subscribers of the page, newest first, confirmed or not. Addresses are masked (`j***@example.com`, ' +
      'a webhook by its origin); confirmation tokens and webhook secrets are never shown.',
    request: { query: paginationQuerySchema },
    responses: { 200: { description: 'A page of subscribers.', page: subscriberRecordSchema } },
    handler: (deps, { ctx, params, query }) => listSubscribers(deps, { ctx, input: { id: params.id, query } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/status-pages/{id}/subscribers/{subscriberId}',
    operationId: 'deleteStatusPageSubscriber',
    roles: 'statusPages:manage',
    tag: 'Status pages',
    summary: 'Remove a subscriber',
    description: 'The subscriber is told nothing more. A subscriber of another page or workspace is 404.',
    responses: { 204: { description: 'Removed; no body.' } },
    handler: (deps, { ctx, params }) => deleteSubscriber(deps, { ctx, input: params }),
  }),
];
