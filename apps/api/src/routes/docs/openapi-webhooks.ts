/**
 * The `webhooks` section of the OpenAPI document: the POSTs Statusvane sends, as the worker sends them. Event webhook
 * deliveries (apps/worker/src/webhooks/deliver.ts: one per event type, its schema that of GET /events), escalation
 * pages and notices to a `webhook` target (packages/shared/src/alerts/page.ts `webhookBody`), and status page
 * subscriber webhooks (apps/worker/src/subscribers/deliver.ts and messages.ts). The two last are written here from
 * those builders; test/openapi.test.ts parses real ones with these schemas.
 */
import type { OpenAPIRegistry, RouteConfig } from '@asteasolutions/zod-to-openapi';
import { EVENT_TYPES, IMPACTS, INCIDENT_UPDATE_STATUSES, SIGNATURE_HEADER } from '@statusvane/shared';
import { dateTime, z } from '../../schemas/zod.js';
import { EVENT_SCHEMAS } from '../../services/events/event-record.js';
import { INCIDENT_STATUSES } from '../../services/incidents/incident-record.js';

const SIGNATURE =
  '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` with the secret named above, computed afresh for ' +
  'every attempt. Verify it over the raw bytes of the body, in constant time, and refuse a `t` more than 5 minutes ' +
  'from your clock (a captured delivery replayed later).';

function deliveryHeaders(secret: string, delivery: string) {
  return z.object({
    [SIGNATURE_HEADER]: z
      .string()
      .regex(/^t=\d+,v1=[0-9a-f]{64}$/)
      .openapi({ description: `Signed with ${secret}: ${SIGNATURE}`, example: `t=1767225600,v1=${'5d'.repeat(32)}` }),
    'Statusvane-Delivery': z.uuid().openapi({ description: delivery }),
  });
}

/** How a receiver's answer is taken, per kind of webhook. */
function answers(retries: string): RouteConfig['responses'] {
  return {
    '2XX': { description: 'Delivered: any 2xx status. The body of the answer is not read.' },
    '4XX': { description: `Not delivered. ${retries}` },
    '5XX': { description: `Not delivered. ${retries}` },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Escalation pages and notices (a policy's `webhook` target)
// ---------------------------------------------------------------------------------------------------------------

const escalationIncidentSchema = z.object({
  id: z.uuid(),
  title: z.string(),
  status: z.enum(INCIDENT_STATUSES),
  impact: z.enum(IMPACTS),
  source: z
    .enum(['monitor', 'manual', 'test'])
    .openapi({ description: '`test`: POST /escalation-policies/{id}/test.' }),
  startedAt: dateTime,
  monitorId: z.uuid().nullable(),
  metadata: z.record(z.string(), z.string()).openapi({ description: "The monitor's labels." }),
});

const escalationPageSchema = z
  .object({
    type: z.literal('incident.escalation'),
    deliveryId: z.uuid().openapi({ description: 'The same in `Statusvane-Delivery`: drop a page already handled.' }),
    workspaceId: z.uuid(),
    incident: escalationIncidentSchema,
    policy: z.object({ id: z.uuid(), name: z.string(), runbook: z.string() }),
    step: z.object({
      id: z.uuid(),
      position: z.number().int().min(0).openapi({ description: 'The step in the ladder, from 0.' }),
      delayMinutes: z.number().int().min(0),
      minImpact: z.enum(IMPACTS),
      cycle: z
        .number()
        .int()
        .min(0)
        .openapi({ description: 'Which repetition of the ladder (`repeatCount`), from 0.' }),
    }),
    firedAt: dateTime,
    test: z.literal(true).optional().openapi({ description: 'A test message: no incident stands behind it.' }),
  })
  .openapi('EscalationPage', { description: 'A step of an escalation policy fired for an incident.' });

const escalationNoticeSchema = z
  .object({
    type: z.enum(['incident.acknowledged', 'incident.resolved']),
    deliveryId: z.uuid().openapi({ description: 'The same in `Statusvane-Delivery`: drop a notice already handled.' }),
    workspaceId: z.uuid(),
    incident: escalationIncidentSchema.extend({ acknowledgedAt: dateTime.nullable(), resolvedAt: dateTime.nullable() }),
    at: dateTime.openapi({ description: 'When it was acknowledged or resolved.' }),
  })
  .openapi('EscalationNotice', {
    description: 'The incident a target was paged for was acknowledged or resolved: sent once to every target paged.',
  });

// ---------------------------------------------------------------------------------------------------------------
// Status page subscribers
// ---------------------------------------------------------------------------------------------------------------

const namedComponent = z.object({ id: z.uuid(), name: z.string() });
const subscriberEnvelope = {
  id: z.uuid().openapi({ description: 'The delivery; the same in `Statusvane-Delivery`.' }),
  page: z.object({ id: z.uuid(), name: z.string(), url: z.url() }),
  unsubscribeUrl: z.url().openapi({ description: 'POST (or open) it to stop these messages.' }),
};

const subscriberIncidentSchema = z
  .object({
    ...subscriberEnvelope,
    type: z.enum(['incident.opened', 'incident.updated', 'incident.resolved']),
    incident: z.object({
      id: z.uuid(),
      title: z.string(),
      status: z.enum(INCIDENT_STATUSES),
      impact: z.enum(IMPACTS),
      startedAt: dateTime,
      resolvedAt: dateTime.nullable(),
      components: z.array(namedComponent).openapi({ description: 'Empty: the whole workspace.' }),
      url: z.url().openapi({ description: "The incident's own page on the status page: `<page url>/incidents/<id>`." }),
    }),
    update: z
      .object({ id: z.uuid(), status: z.enum(INCIDENT_UPDATE_STATUSES), message: z.string(), createdAt: dateTime })
      .nullable()
      .openapi({ description: 'incident.updated: the update posted; otherwise the latest one, or null.' }),
  })
  .openapi('SubscriberIncidentMessage', { description: "A public incident of the page's components." });

const subscriberMaintenanceSchema = z
  .object({
    ...subscriberEnvelope,
    type: z.enum(['maintenance.scheduled', 'maintenance.started', 'maintenance.completed']),
    maintenance: z.object({
      id: z.uuid(),
      title: z.string(),
      body: z.string(),
      startsAt: dateTime,
      endsAt: dateTime,
      components: z.array(namedComponent).openapi({ description: 'Empty: every component.' }),
    }),
  })
  .openapi('SubscriberMaintenanceMessage', {
    description: "A maintenance window of the page's components: announced ahead of its start, started, completed.",
  });

/** What the documented webhook bodies are parsed with (test/openapi.test.ts holds real ones against them). */
export const WEBHOOK_BODY_SCHEMAS = {
  escalation: z.discriminatedUnion('type', [escalationPageSchema, escalationNoticeSchema]),
  subscriber: z.discriminatedUnion('type', [subscriberIncidentSchema, subscriberMaintenanceSchema]),
};

/** Registers every webhook Statusvane sends. */
export function registerWebhooks(registry: OpenAPIRegistry): void {
  for (const type of EVENT_TYPES) {
    registry.registerWebhook({
      method: 'post',
      path: type,
      operationId: `${type.replace(/[._](\w)/g, (_, c: string) => c.toUpperCase())}Webhook`,
      tags: ['Events'],
      summary: `Event webhook: ${type}`,
      description:
        `The \`${type}\` event (GET /events shows the same), POSTed as CloudEvents structured JSON to every webhook ` +
        '(POST /webhooks) that takes it, in the order of the log, at least once: drop an event `id` already handled. ' +
        'docs/events.md tells the whole protocol.',
      request: {
        headers: deliveryHeaders(
          "the webhook's `secret` (shown once, when it is created)",
          'The delivery (GET /webhooks/{id}/deliveries lists it); a replay makes new deliveries of the same events.',
        ),
        body: {
          required: true,
          content: { 'application/cloudevents+json': { schema: EVENT_SCHEMAS[type] } },
        },
      },
      responses: answers(
        'Any answer but a 2xx (a 3xx, 4xx or 5xx), a timeout (10 s) or a connection error is retried with backoff ' +
          '(10 s, doubling, at most an hour apart) until 24 hours after the delivery was made; then it is `failed`. A ' +
          'URL that resolves to a private or internal address is not sent to: `failed` at once. ' +
          'POST /webhooks/{id}/replay sends the events again from a cursor.',
      ),
    });
  }
  registry.registerWebhook({
    method: 'post',
    path: 'escalation',
    operationId: 'escalationWebhook',
    tags: ['Escalation policies'],
    summary: "Escalation page or notice (a policy's webhook target)",
    description:
      'A step of an escalation policy with a `webhook` target POSTs a page (`incident.escalation`) to its URL when the ' +
      'step fires, and later a notice when the incident is acknowledged or resolved.',
    request: {
      headers: deliveryHeaders(
        "the workspace's escalation signing secret (the same for all its webhook targets)",
        'The page or notice: a retry sends the same one.',
      ),
      body: { required: true, content: { 'application/json': { schema: WEBHOOK_BODY_SCHEMAS.escalation } } },
    },
    responses: answers(
      'A 5xx, 429 or 408, a timeout (10 s) or a connection error is tried again, 3 attempts in all (1 s, then 2 s ' +
        'apart); another answer (a 3xx or 4xx) fails the delivery at once. GET /incidents/{id}/escalation shows it.',
    ),
  });
  registry.registerWebhook({
    method: 'post',
    path: 'status-page-subscriber',
    operationId: 'statusPageSubscriberWebhook',
    tags: ['Status pages'],
    summary: "Status page subscriber message (a subscriber's webhookUrl)",
    description:
      'A subscriber that gave a `webhookUrl` (POST /status/{slug}/subscribe) is told of the public incidents and ' +
      "maintenance of the page's components (or of those it chose).",
    request: {
      headers: deliveryHeaders(
        "the subscriber's `secret` (answered once, when it subscribed)",
        'The delivery: a retry sends the same one.',
      ),
      body: { required: true, content: { 'application/json': { schema: WEBHOOK_BODY_SCHEMAS.subscriber } } },
    },
    responses: answers(
      'A 5xx, 429 or 408, a timeout (10 s) or a connection error is tried again with backoff (30 s, doubling), ' +
        '8 attempts in all; another answer fails the delivery.',
    ),
  });
}
