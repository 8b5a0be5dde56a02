import { createStatusPageSchema, RESERVED_SLUGS } from '@statusvane/shared';
import { createStatusPage } from '../../services/status-pages/create-status-page.js';
import { getStatusPageLayout, statusPageLayoutSchema } from '../../services/status-pages/get-status-page-layout.js';
import { statusPageRecordSchema } from '../../services/status-pages/status-page-record.js';
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
];
