import { paginationQuerySchema } from '@statusvane/shared';
import { componentRecordSchema } from '../../services/components/component-record.js';
import { getComponent } from '../../services/components/get-component.js';
import { listComponents } from '../../services/components/list-components.js';
import { updateComponent, updateComponentSchema } from '../../services/components/update-component.js';
import { defineRoute } from '../define-route.js';

export const componentRoutes = [
  defineRoute({
    method: 'get',
    path: '/components',
    operationId: 'listComponents',
    roles: 'read',
    tag: 'Components',
    summary: 'List components',
    description: "A page of the workspace's public components, oldest first, each with the state status pages show.",
    request: { query: paginationQuerySchema },
    responses: { 200: { description: 'A page of components.', page: componentRecordSchema } },
    handler: (deps, { ctx, query }) => listComponents(deps, { ctx, input: query }),
  }),
  defineRoute({
    method: 'get',
    path: '/components/{id}',
    operationId: 'getComponent',
    roles: 'read',
    tag: 'Components',
    summary: 'Get a component',
    description: 'The component record, with the state status pages show.',
    responses: { 200: { description: 'The component.', data: componentRecordSchema } },
    handler: (deps, { ctx, params }) => getComponent(deps, { ctx, input: params }),
  }),
  defineRoute({
    method: 'patch',
    path: '/components/{id}',
    operationId: 'updateComponent',
    roles: 'components:write',
    tag: 'Components',
    summary: 'Rename or describe a component',
    description:
      'Changes the public `name` (1 to 120 characters) and `description` (up to 500) status pages show. The monitor keeps ' +
      'its own name; renaming the monitor later renames the component again.',
    request: {
      body: {
        schema: updateComponentSchema,
        examples: {
          describe: { summary: 'A public description', value: { name: 'Checkout', description: 'Payments and carts' } },
        },
      },
    },
    responses: { 200: { description: 'The updated component.', data: componentRecordSchema } },
    handler: (deps, { ctx, params, body }) => updateComponent(deps, { ctx, input: { id: params.id, changes: body } }),
  }),
];
