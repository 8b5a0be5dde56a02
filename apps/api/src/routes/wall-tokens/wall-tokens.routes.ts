import { paginationQuerySchema } from '@statusvane/shared';
import { createWallToken, createWallTokenSchema } from '../../services/wall-tokens/create-wall-token.js';
import { deleteWallToken } from '../../services/wall-tokens/delete-wall-token.js';
import { listWallTokens } from '../../services/wall-tokens/list-wall-tokens.js';
import { createdWallTokenSchema, wallTokenRecordSchema } from '../../services/wall-tokens/wall-token-record.js';
import { defineRoute } from '../define-route.js';

export const wallTokenRoutes = [
  defineRoute({
    method: 'get',
    path: '/wall-tokens',
    operationId: 'listWallTokens',
    roles: 'wallTokens:manage',
    tag: 'Access',
    summary: 'List wall view links',
    description:
      "The workspace's wall view links, oldest first. A link's token is never shown again after it was created.",
    request: { query: paginationQuerySchema },
    responses: { 200: { description: 'A page of wall tokens.', page: wallTokenRecordSchema } },
    handler: (deps, { ctx, query }) => listWallTokens(deps, { ctx, input: query }),
  }),
  defineRoute({
    method: 'post',
    path: '/wall-tokens',
    operationId: 'createWallToken',
    roles: 'wallTokens:manage',
    tag: 'Access',
    summary: 'Create a wall view link',
    description:
      'A link, `<PUBLIC_BASE_URL>/app/wall/<token>`, to a read-only view of the workspace for a screen on the wall: every ' +
      'monitor in a large tile, the worst first, refreshing itself; no sign-in, never indexed. The token (32 random ' +
      'bytes) is in `token` and `url` this once and stored only as a hash. A replay with the same `Idempotency-Key` ' +
      'answers `token` and `url` null.',
    request: {
      body: {
        schema: createWallTokenSchema,
        examples: { office: { summary: 'The office screen', value: { name: 'Office, 3rd floor' } } },
      },
    },
    idempotent: true,
    responses: {
      201: { description: 'The wall token, with its link this once.', data: createdWallTokenSchema },
      409: {
        description: 'a request with the same `Idempotency-Key` is still in flight.',
        example: 'A request with this Idempotency-Key is in progress',
      },
    },
    handler: (deps, { ctx, body }) => createWallToken(deps, { ctx, input: body }),
  }),
  defineRoute({
    method: 'delete',
    path: '/wall-tokens/{id}',
    operationId: 'deleteWallToken',
    roles: 'wallTokens:manage',
    tag: 'Access',
    summary: 'Delete a wall view link',
    description: 'The wall view of this link answers 404 from its next request (its next refresh) on.',
    responses: { 204: { description: 'Deleted; no body.' } },
    handler: (deps, { ctx, params }) => deleteWallToken(deps, { ctx, input: params }),
  }),
];
