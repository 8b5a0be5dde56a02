import {
  accountingSettingsInputSchema,
  accountingSettingsSchema,
} from '../../services/settings/accounting-settings-record.js';
import { getAccountingSettings } from '../../services/settings/get-accounting-settings.js';
import { updateAccountingSettings } from '../../services/settings/update-accounting-settings.js';
import { defineRoute } from '../define-route.js';

export const settingsRoutes = [
  defineRoute({
    method: 'get',
    path: '/settings/accounting',
    operationId: 'getAccountingSettings',
    roles: 'read',
    tag: 'Reports',
    summary: 'The uptime accounting policy',
    description:
      "How the workspace counts uptime: maintenance, degraded and no-data time, the reports' timezone and the " +
      'monthly report recipients. The defaults (maintenance and no data excluded, degraded up, UTC, nobody) at ' +
      'version 1 until changed.',
    responses: { 200: { description: 'The policy.', data: accountingSettingsSchema } },
    handler: (deps, { ctx }) => getAccountingSettings(deps, { ctx }),
  }),
  defineRoute({
    method: 'put',
    path: '/settings/accounting',
    operationId: 'updateAccountingSettings',
    roles: 'reports:manage',
    tag: 'Reports',
    summary: 'Replace the uptime accounting policy',
    description:
      'Replaces the whole policy (an omitted field goes back to its default); `version` grows by one when a field ' +
      'changed. Every uptime figure (reports, status page bars and badges) is counted with it from then on and names ' +
      'its version.',
    request: {
      body: {
        schema: accountingSettingsInputSchema,
        examples: {
          strict: {
            summary: 'Maintenance counts as down',
            value: { maintenance: 'down', degraded: 'up', noData: 'excluded', timezone: 'Europe/Berlin' },
          },
        },
      },
    },
    responses: { 200: { description: 'The policy as stored.', data: accountingSettingsSchema } },
    handler: (deps, { ctx, body }) => updateAccountingSettings(deps, { ctx, input: body }),
  }),
];
