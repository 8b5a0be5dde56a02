import { createStatusPageSchema, paginationQuerySchema, RESERVED_SLUGS } from '@statusvane/shared';
import { createStatusPage } from '../../services/status-pages/create-status-page.js';
import { deleteStatusPage } from '../../services/status-pages/delete-status-page.js';
import { getStatusPage } from '../../services/status-pages/get-status-page.js';
import { listStatusPages } from '../../services/status-pages/list-status-pages.js';
import {
  updateStatusPage,
  updateStatusPageChecks,
  updateStatusPageSchema,
} from '../../services/status-pages/update-status-page.js';
import { getStatusPageLayout } from '../../services/status-pages/get-status-page-layout.js';
import { statusPageLayoutSchema } from '../../services/status-pages/status-page-layout-record.js';
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
    path: '/status-pages',
    operationId: 'listStatusPages',
    roles: 'read',
    tag: 'Status pages',
    summary: 'List status pages',
    description: "A page of the workspace's status pages, oldest first.",
    request: { query: paginationQuerySchema },
    responses: { 200: { description: 'A page of status pages.', page: statusPageRecordSchema } },
    handler: (deps, { ctx, query }) => listStatusPages(deps, { ctx, input: query }),
  }),
  defineRoute({
    method: 'get',
    path: '/status-pages/{id}',
    operationId: 'getStatusPage',
    roles: 'read',
    tag: 'Status pages',
    summary: 'Get a status page',
    description: 'The record POST returns. The password itself is never shown, only `passwordProtected`.',
    responses: { 200: { description: 'The status page.', data: statusPageRecordSchema } },
    handler: (deps, { ctx, params }) => getStatusPage(deps, { ctx, input: params }),
  }),
  defineRoute({
    method: 'patch',
    path: '/status-pages/{id}',
    operationId: 'updateStatusPage',
    roles: 'statusPages:manage',
    tag: 'Status pages',
    summary: 'Update a status page',
    description:
      'Every field is optional and only the provided ones change, in one transaction. `slug` follows the create rules ' +
      '(normalised like `vanityUrl`; reserved or taken by any workspace: 409) and the old address answers 404 at once. ' +
      '`sections` replaces the whole layout (`[]`: every component, ungrouped); a component of another workspace or placed ' +
      'twice is 400. `password` (8 to 128 characters) protects the page and signs visitors out; null removes it.',
    request: {
      body: {
        schema: updateStatusPageSchema,
        checks: updateStatusPageChecks,
        examples: {
          rename: { summary: 'Rename and move', value: { name: 'Acme status', slug: 'acme-status' } },
          layout: {
            summary: 'Arrange the page',
            value: { sections: [{ name: 'API', componentIds: ['8b1f2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d'] }] },
          },
          protect: { summary: 'Require a password', value: { password: 'correct horse battery' } },
        },
      },
    },
    responses: {
      200: { description: 'The updated page.', data: statusPageRecordSchema },
      409: { description: 'the slug is reserved or already taken.', example: 'The slug acme-status is already taken' },
    },
    handler: (deps, { ctx, params, body }) => updateStatusPage(deps, { ctx, input: { id: params.id, changes: body } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/status-pages/{id}',
    operationId: 'deleteStatusPage',
    roles: 'statusPages:manage',
    tag: 'Status pages',
    summary: 'Delete a status page',
    description: 'Deletes the page and its layout. Its public address answers 404 at once and its slug is free again.',
    responses: { 204: { description: 'Deleted; no body.' } },
    handler: (deps, { ctx, params }) => deleteStatusPage(deps, { ctx, input: params }),
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
