import { z } from '../../schemas/zod.js';
import { calendarTokenRecordSchema } from '../../services/schedules/create-calendar-token.js';
import { contactMethodRecordSchema, putContactMethodsSchema } from '../../services/users/contact-method-record.js';
import { createMyCalendarToken } from '../../services/users/create-calendar-token.js';
import { deleteMyCalendarToken } from '../../services/users/delete-calendar-token.js';
import { listContactMethods } from '../../services/users/list-contact-methods.js';
import { updateContactMethods } from '../../services/users/update-contact-methods.js';
import { connectedAppRecordSchema } from '../../services/oauth/connected-app-record.js';
import { deleteConnectedApp } from '../../services/oauth/delete-connected-app.js';
import { listConnectedApps } from '../../services/oauth/list-connected-apps.js';
import { defineUserRoute } from '../define-route.js';

/** The caller's own settings (`/me/...`): a person's, the same in every workspace. */
export const meRoutes = [
  defineUserRoute({
    method: 'get',
    path: '/me/contact-methods',
    operationId: 'listMyContactMethods',
    tag: 'On-call',
    summary: 'List my contact methods',
    description:
      'How `schedule` and `user` escalation targets reach you, in the order pages go out. Secrets are never shown: each ' +
      'method is its `id` and `display`.',
    responses: { 200: { description: 'Your contact methods.', data: z.array(contactMethodRecordSchema) } },
    handler: (deps, { ctx }) => listContactMethods(deps, { ctx, input: {} }),
  }),
  defineUserRoute({
    method: 'put',
    path: '/me/contact-methods',
    operationId: 'putMyContactMethods',
    tag: 'On-call',
    summary: 'Replace my contact methods',
    description:
      "Replaces the list. Each method is a target of section 5's shapes (webhook, slack, email, teams, discord, ntfy: " +
      '`target`; pagerduty: `routingKey`; opsgenie: `apiKey`; telegram: `botToken` and `chatId`); URLs must pass the SSRF ' +
      'guard (400); secrets are stored encrypted and never shown again. At most 10; `[]` removes them all (pages then ' +
      'record `no_contact_method` and go to the fallback).',
    request: {
      body: {
        schema: putContactMethodsSchema,
        examples: {
          mailAndPhone: {
            summary: 'Email, then ntfy on the phone',
            value: {
              methods: [
                { channel: 'email', target: 'ann@example.com' },
                { channel: 'ntfy', target: 'https://ntfy.sh/ann-pager-6f1c8f8a' },
              ],
            },
          },
        },
      },
    },
    responses: { 200: { description: 'Your contact methods.', data: z.array(contactMethodRecordSchema) } },
    handler: (deps, { ctx, body }) =>
      updateContactMethods({ ...deps, keyring: deps.config.encryption }, { ctx, input: body }),
  }),
  defineUserRoute({
    method: 'post',
    path: '/me/calendar-token',
    operationId: 'createMyCalendarToken',
    tag: 'On-call',
    summary: 'Create my calendar feed URL',
    description:
      'An iCalendar feed of your own shifts in every schedule of every workspace you belong to, the next 90 days, at ' +
      '`<PUBLIC_BASE_URL>/ical/<token>.ics`. Shown in this answer only; a new one replaces the previous URL. Not taken ' +
      'with `Idempotency-Key`: a retry makes another URL, and the last one answered is the one that works.',
    responses: { 201: { description: 'The feed URL, shown once.', data: calendarTokenRecordSchema } },
    handler: (deps, { ctx }) => createMyCalendarToken(deps, { ctx, input: {} }),
  }),
  defineUserRoute({
    method: 'delete',
    path: '/me/calendar-token',
    operationId: 'deleteMyCalendarToken',
    tag: 'On-call',
    summary: 'Revoke my calendar feed URL',
    description: 'The feed answers 404 from now on. None: 404.',
    responses: { 204: { description: 'Revoked.' } },
    handler: (deps, { ctx }) => deleteMyCalendarToken(deps, { ctx, input: {} }),
  }),
  defineUserRoute({
    method: 'get',
    path: '/me/connected-apps',
    operationId: 'listMyConnectedApps',
    tag: 'Access',
    summary: 'List my connected apps',
    description:
      'The apps you allowed through OAuth (`/oauth/authorize`: MCP clients, assistants ...), each with its scope ' +
      '(`read`, or `write`), the workspaces granted and the primary one. App names are what the app registered with, ' +
      'unverified.',
    responses: { 200: { description: 'Your connected apps, newest first.', data: z.array(connectedAppRecordSchema) } },
    handler: (deps, { ctx }) => listConnectedApps(deps, { ctx, input: {} }),
  }),
  defineUserRoute({
    method: 'delete',
    path: '/me/connected-apps/{id}',
    operationId: 'deleteMyConnectedApp',
    tag: 'Access',
    summary: 'Revoke a connected app',
    description:
      'Revokes the grant at once: every access and refresh token issued to the app for you answers 401 from the next ' +
      'request. The app must ask for your consent again. Not with an OAuth token (403). Unknown: 404.',
    responses: { 204: { description: 'Revoked.' } },
    handler: (deps, { ctx, params }) => deleteConnectedApp(deps, { ctx, input: { id: params.id } }),
  }),
];
