import { paginationQuerySchema } from '@statusvane/shared';
import type { ApiDeps } from '../../deps.js';
import { createSecret } from '../../services/secrets/create-secret.js';
import { deleteSecret } from '../../services/secrets/delete-secret.js';
import { listSecrets } from '../../services/secrets/list-secrets.js';
import { createSecretSchema, replaceSecretSchema } from '../../services/secrets/secret-input.js';
import { secretNameOf, secretRecordSchema } from '../../services/secrets/secret-record.js';
import { updateSecret } from '../../services/secrets/update-secret.js';
import { defineRoute } from '../define-route.js';

const withKeyring = (deps: ApiDeps) => ({ ...deps, keyring: deps.config.encryption });

export const secretRoutes = [
  defineRoute({
    method: 'post',
    path: '/secrets',
    operationId: 'createSecret',
    roles: 'secrets:manage',
    tag: 'Secrets',
    summary: 'Create a secret',
    description:
      'A write-only value for `{{secrets.NAME}}` in api steps (url, headers, body) and http monitors (headers, body). ' +
      'A request that would carry it to a host outside `allowedHosts` fails `secret_host_not_allowed` and nothing is ' +
      'sent. A name in use is 409.',
    request: {
      body: {
        schema: createSecretSchema,
        examples: {
          token: {
            summary: 'An API token for one host',
            value: { name: 'API_TOKEN', value: 's3cr3t', allowedHosts: ['api.example.com'] },
          },
        },
      },
    },
    idempotent: true,
    responses: {
      201: { description: 'The secret (never its value).', data: secretRecordSchema },
      409: { description: 'the name is in use.', example: 'A secret named API_TOKEN already exists' },
    },
    handler: (deps, { ctx, body }) => createSecret(withKeyring(deps), { ctx, input: body }),
  }),
  defineRoute({
    method: 'get',
    path: '/secrets',
    operationId: 'listSecrets',
    roles: 'read',
    tag: 'Secrets',
    summary: 'List secrets',
    description: 'Names, hosts and the monitors that use each, by name; never a value.',
    request: { query: paginationQuerySchema },
    responses: { 200: { description: 'A page of secrets.', page: secretRecordSchema } },
    handler: (deps, { ctx, query }) => listSecrets(deps, { ctx, input: query }),
  }),
  defineRoute({
    method: 'put',
    path: '/secrets/{name}',
    operationId: 'replaceSecret',
    roles: 'secrets:manage',
    tag: 'Secrets',
    summary: 'Replace a secret',
    description: 'A new value and hosts, replacing both. Checks use the new value from their next run.',
    request: { body: { schema: replaceSecretSchema } },
    responses: { 200: { description: 'The secret (never its value).', data: secretRecordSchema } },
    handler: (deps, { ctx, params, body }) =>
      updateSecret(withKeyring(deps), { ctx, input: { name: secretNameOf(params.name), secret: body } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/secrets/{name}',
    operationId: 'deleteSecret',
    roles: 'secrets:manage',
    tag: 'Secrets',
    summary: 'Delete a secret',
    description: 'Refused (409, `details.monitors`) while a monitor names it.',
    responses: {
      204: { description: 'Deleted.' },
      409: {
        description: 'monitors still name the secret (`details.monitors`).',
        example: 'The secret API_TOKEN is used by 2 monitor(s): change them first',
      },
    },
    handler: (deps, { ctx, params }) => deleteSecret(deps, { ctx, input: { name: secretNameOf(params.name) } }),
  }),
];
