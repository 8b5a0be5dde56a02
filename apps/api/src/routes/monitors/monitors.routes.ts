import { z } from '../../schemas/zod.js';
import {
  createMonitorSchema,
  paginationQuerySchema,
  responseTimesQuerySchema,
  updateMonitorSchema,
} from '@statusvane/shared';
import {
  countMonitors,
  monitorCountsQuerySchema,
  monitorStatusCountsSchema,
} from '../../services/monitors/count-monitors.js';
import { createMonitor } from '../../services/monitors/create-monitor.js';
import { deleteMonitor } from '../../services/monitors/delete-monitor.js';
import { getMonitor } from '../../services/monitors/get-monitor.js';
import { listMonitors, monitorListQuerySchema } from '../../services/monitors/list-monitors.js';
import { monitorRecordSchema } from '../../services/monitors/monitor-record.js';
import { createMonitorChecks, updateMonitorChecks } from '../../services/monitors/monitor-validation.js';
import { getResponseTimes, responseTimeHistorySchema } from '../../services/monitors/get-response-times.js';
import { updateMonitor } from '../../services/monitors/update-monitor.js';
import {
  checkResultQuerySchema,
  checkResultRecordSchema,
  listCheckResults,
} from '../../services/monitors/list-check-results.js';
import { defineRoute } from '../define-route.js';
import { importOpenApi } from '../../services/openapi-import/import-openapi.js';
import { importOpenApiSchema } from '../../services/openapi-import/import-input.js';
import { configPlanSchema } from '../config/config.routes.js';
import { listPings } from '../../services/heartbeats/list-pings.js';
import { heartbeatPingRecordSchema } from '../../services/heartbeats/ping-record.js';

export const monitorRoutes = [
  defineRoute({
    method: 'post',
    path: '/monitors/import/openapi',
    operationId: 'importOpenApi',
    roles: 'monitors:write',
    tag: 'Monitors',
    summary: 'Import monitors from an OpenAPI document',
    description:
      'One http monitor per GET operation of an OpenAPI 3.0 or 3.1 document that needs no parameter (or whose required ' +
      'parameters have examples): its target `baseUrl` + path, `expectedStatusCodes` its documented 2xx, `responseSchema` ' +
      'its JSON response schema (local `$ref`s resolved), `ref` `openapi.<name>.<operationId in kebab-case>`, ' +
      '`metadata.openapi` the operationId. Answers a plan as POST /config/plan does (and `skipped`: the GET operations ' +
      'left out, with why); nothing is written unless `apply: true` (admins and owners), which applies it as POST ' +
      '/config/apply does. Importing the same `name` again shows only the difference, and deletes only monitors of that ' +
      'import that the document no longer has. The document is inline (an object, or YAML or JSON text; bodies up to 5 ' +
      'MiB) or fetched from `documentUrl` through the request forgery guard.',
    request: {
      body: {
        schema: importOpenApiSchema,
        large: true,
        examples: {
          url: {
            summary: 'Plan an import of a served document',
            value: {
              name: 'orders',
              documentUrl: 'https://api.example.com/openapi.json',
              baseUrl: 'https://api.example.com',
            },
          },
        },
      },
    },
    idempotent: true,
    responses: {
      200: {
        description: 'The plan (applied with `apply: true`).',
        data: configPlanSchema.extend({
          skipped: z
            .array(z.object({ operation: z.string(), reason: z.string() }))
            .openapi({ description: 'GET operations not imported, and why.' }),
        }),
      },
      409: {
        description:
          'a request with the same `Idempotency-Key` is still in flight, or the workspace changed meanwhile.',
        example: 'A request with this Idempotency-Key is still in progress; retry shortly',
      },
    },
    handler: (deps, { ctx, body }) => importOpenApi(deps, { ctx, input: body }),
  }),
  defineRoute({
    method: 'post',
    path: '/monitors',
    operationId: 'createMonitor',
    roles: 'monitors:write',
    tag: 'Monitors',
    summary: 'Create a monitor',
    description:
      'Creates the monitor and its public component. The first check runs within seconds. ' +
      'The body is one of six kinds by `type`; when `type` is omitted the body is an `http` monitor. For `heartbeat` the ' +
      'response includes `pingUrl`. A `domain` target must be a registrable domain (`example.co.uk`, not a subdomain: 400). ' +
      "A `dns` monitor's `dnsResolver` (`ip[:port]`) is judged like a target: an internal " +
      'address is refused with 400. ' +
      'An http target must be an absolute http(s) URL without credentials, and a target that is or resolves to a private, ' +
      'loopback, link-local or otherwise non-public address is refused with 400 (server-side request forgery guard); a host name ' +
      'that does not resolve, or not within 2.5 s, is accepted and checked again at every connection. `enabled` is not ' +
      'accepted: a monitor starts enabled. An empty `keyword` or `keywordAbsent` means none (stored as null). A 400 lists every ' +
      'offending field in `error.details.issues`, whichever check found it (schema, fields of the type, target, rules between ' +
      'fields, request forgery guard). With `Idempotency-Key` the stored answer commits in the same transaction as the monitor.',
    request: {
      body: {
        schema: createMonitorSchema,
        checks: createMonitorChecks,
        examples: {
          http: {
            summary: 'An http monitor',
            value: {
              type: 'http',
              name: 'Homepage',
              target: 'https://www.example.com/health',
              intervalSeconds: 60,
              expectedStatusCodes: [200],
              keyword: 'ok',
            },
          },
          tcp: { summary: 'A tcp monitor', value: { type: 'tcp', name: 'Database', target: 'db.example.com:5432' } },
          dns: {
            summary: 'A dns monitor',
            value: {
              type: 'dns',
              name: 'Mail routing',
              target: 'example.com',
              dnsRecordType: 'MX',
              dnsResolver: '1.1.1.1:53',
              dnsExpected: ['10 mx1.example.com'],
            },
          },
          domain: {
            summary: 'A domain registration that must not lapse',
            value: { type: 'domain', name: 'example.com registration', target: 'example.com', domainExpiryDays: 45 },
          },
          heartbeat: {
            summary: 'A heartbeat for a nightly job',
            value: { type: 'heartbeat', name: 'Nightly backup', intervalSeconds: 86400, graceSeconds: 900 },
          },
          api: {
            summary: 'An api monitor: log in, create, read, clean up',
            value: {
              type: 'api',
              name: 'Orders API',
              steps: [
                {
                  name: 'login',
                  method: 'POST',
                  url: 'https://api.example.com/login',
                  body: '{"user":"probe","password":"{{secrets.PROBE_PASSWORD}}"}',
                  expectedStatusCodes: [200],
                  extract: [{ as: 'token', from: 'json', path: '$.token' }],
                },
                {
                  name: 'create',
                  method: 'POST',
                  url: 'https://api.example.com/orders',
                  headers: { Authorization: 'Bearer {{token}}' },
                  body: '{"item":"probe"}',
                  expectedStatusCodes: [201],
                  extract: [{ as: 'orderId', from: 'json', path: '$.id' }],
                },
                {
                  name: 'read',
                  method: 'GET',
                  url: 'https://api.example.com/orders/{{orderId}}',
                  headers: { Authorization: 'Bearer {{token}}' },
                  assertions: [{ source: 'json', property: '$.item', operator: 'eq', value: 'probe' }],
                },
                {
                  name: 'clean up',
                  method: 'DELETE',
                  url: 'https://api.example.com/orders/{{orderId}}',
                  headers: { Authorization: 'Bearer {{token}}' },
                  always: true,
                },
              ],
            },
          },
        },
      },
    },
    idempotent: true,
    responses: {
      201: { description: 'The created monitor.', data: monitorRecordSchema },
      409: {
        description: 'a request with the same `Idempotency-Key` is still in flight.',
        example: 'A request with this Idempotency-Key is still in progress; retry shortly',
      },
    },
    handler: (deps, { ctx, body }) => createMonitor(deps, { ctx, input: body }),
  }),
  defineRoute({
    method: 'get',
    path: '/monitors',
    operationId: 'listMonitors',
    roles: 'read',
    tag: 'Monitors',
    summary: 'List monitors',
    description:
      "A page of the workspace's monitors, oldest first or in the order `sort` asks, filtered by every filter given " +
      '(AND). `status` finds monitors by the status their records show: `paused` (disabled), `maintenance` (a window ' +
      'in progress covers them), else their last check state; `metadata.<key>=<value>` (repeatable, each key once) ' +
      'matches a metadata value exactly, e.g. `?metadata.team=payments&metadata.tier=1`. An invalid value or an unknown ' +
      'parameter is 400.',
    request: { query: monitorListQuerySchema },
    responses: { 200: { description: 'A page of monitors.', page: monitorRecordSchema } },
    handler: (deps, { ctx, query }) => listMonitors(deps, { ctx, input: query }),
  }),
  defineRoute({
    method: 'get',
    path: '/monitors/counts',
    operationId: 'countMonitors',
    roles: 'read',
    tag: 'Monitors',
    summary: 'Count monitors by status',
    description:
      "How many of the workspace's monitors match the filters of `GET /monitors` (the same parameters, without `page`, " +
      '`perPage` and `sort`), per status their records show, and in all: each count is the `pagination.total` that ' +
      '`GET /monitors?status=<status>` with the same filters answers. With `status`, the statuses it does not name ' +
      'count 0.',
    request: { query: monitorCountsQuerySchema },
    responses: { 200: { description: 'The counts.', data: monitorStatusCountsSchema } },
    handler: (deps, { ctx, query }) => countMonitors(deps, { ctx, input: query }),
  }),
  defineRoute({
    method: 'get',
    path: '/monitors/{id}',
    operationId: 'getMonitor',
    roles: 'read',
    tag: 'Monitors',
    summary: 'Get a monitor',
    description: 'The monitor record, including `pingUrl` for a heartbeat monitor.',
    responses: { 200: { description: 'The monitor.', data: monitorRecordSchema } },
    handler: (deps, { ctx, params }) => getMonitor(deps, { ctx, input: params }),
  }),
  defineRoute({
    method: 'patch',
    path: '/monitors/{id}',
    operationId: 'updateMonitor',
    roles: 'monitors:write',
    tag: 'Monitors',
    summary: 'Update, pause or resume a monitor',
    description:
      'Every field is optional and only the provided ones change. `enabled: false` pauses the monitor, `enabled: true` resumes it. ' +
      "`type` and `metadata` cannot be changed (400), and a field that does not apply to the monitor's type is 400. `headers` " +
      'and `body` replace the stored ones whole (`headers: {}` and `body: null` clear them); nullable settings are cleared ' +
      'with null, and an empty `keyword` or `keywordAbsent` clears it too. A 400 lists every offending field. The rules between ' +
      'fields hold for the monitor as stored after the write: a PATCH that a concurrent one made invalid (say, a method GET ' +
      'meeting a body) is refused with 400.',
    request: {
      body: {
        schema: updateMonitorSchema,
        checks: updateMonitorChecks,
        examples: {
          pause: { summary: 'Pause the monitor', value: { enabled: false } },
          tune: {
            summary: 'Check less often, fail slower responses',
            value: { intervalSeconds: 300, latencyThresholdMs: 5000 },
          },
        },
      },
    },
    responses: { 200: { description: 'The updated monitor.', data: monitorRecordSchema } },
    handler: (deps, { ctx, params, body }) => updateMonitor(deps, { ctx, input: { id: params.id, changes: body } }),
  }),
  defineRoute({
    method: 'delete',
    path: '/monitors/{id}',
    operationId: 'deleteMonitor',
    roles: 'monitors:delete',
    tag: 'Monitors',
    summary: 'Delete a monitor',
    description:
      'Permanently deletes the monitor and its component. Its schedules are removed before the answer, so no check of it ' +
      'starts afterwards; a heartbeat ping URL answers 404; the component leaves every status page section and maintenance ' +
      'window. Its incidents are kept with `monitorId: null`; an open or acknowledged one is resolved first (its escalation ' +
      'stops and the paged targets are told). Its check results and response-time history are deleted. A later GET is 404.',
    responses: { 204: { description: 'Deleted; no body.' } },
    handler: (deps, { ctx, params }) => deleteMonitor(deps, { ctx, input: params }),
  }),
  defineRoute({
    method: 'get',
    path: '/monitors/{id}/pings',
    operationId: 'listMonitorPings',
    roles: 'read',
    tag: 'Monitors',
    summary: "List a heartbeat's pings",
    description:
      'Every ping the heartbeat received, newest first: its kind, exit code, run id, the duration of the run it ended, ' +
      "the POST body's first 10,000 bytes (the run's log), the sender's address and User-Agent. Pings are kept as long " +
      'as check results. A monitor of another type has none.',
    request: { query: paginationQuerySchema },
    responses: { 200: { description: 'A page of pings.', page: heartbeatPingRecordSchema } },
    handler: (deps, { ctx, params, query }) => listPings(deps, { ctx, input: { id: params.id, query } }),
  }),
  defineRoute({
    method: 'get',
    path: '/monitors/{id}/response-times',
    operationId: 'getMonitorResponseTimes',
    roles: 'read',
    tag: 'Monitors',
    summary: 'Get response-time history',
    description:
      'Fixed-width buckets over the chosen period, every bucket present, the window ending at the current bucket: `hour` ' +
      '60 of one minute, `day` 24 of one hour, `week` 28 of six hours, `month` 30 and `quarter` 90 of one UTC day. `avgMs` ' +
      'averages the checks that got a response, `p50Ms` and `p95Ms` are their median and 95th percentile (from latency ' +
      'histograms: within 9.4% from 20 ms up, within 2 ms below); an empty bucket has `total` 0, `downCount` 0 and the ' +
      'times null. The phase breakdown requires the Solo plan or above: on the Free plan every phase value is null and the ' +
      'rest is unchanged.',
    request: { query: responseTimesQuerySchema },
    responses: { 200: { description: 'The history.', data: responseTimeHistorySchema } },
    handler: (deps, { ctx, params, query }) => getResponseTimes(deps, { ctx, input: { id: params.id, query } }),
  }),
  defineRoute({
    method: 'get',
    path: '/monitors/{id}/results',
    operationId: 'listMonitorResults',
    roles: 'read',
    tag: 'Monitors',
    summary: "List a monitor's check results",
    description:
      'Every stored check result (kept for the retention period), newest first: one per region and scheduled slot, with ' +
      'its status, failure reason, HTTP status and duration; DNS answers and the TLS certificate where the check had them. ' +
      'Filters, combined with AND: `region`, `status` (a comma list of up, degraded, down) and `since`.',
    request: { query: checkResultQuerySchema },
    responses: { 200: { description: 'A page of results.', page: checkResultRecordSchema } },
    handler: (deps, { ctx, params, query }) => listCheckResults(deps, { ctx, input: { id: params.id, query } }),
  }),
];
