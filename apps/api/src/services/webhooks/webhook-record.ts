import { EVENT_TYPES, type Prisma, type PrismaClient } from '@statusvane/shared';
import { dateTime, versionSchema, z } from '../../schemas/zod.js';
import type { OwnLookup } from '../records.js';

export const webhookRecordSchema = z
  .object({
    id: z.uuid(),
    url: z.string().meta({
      description: 'The endpoint, shown as `scheme://host/…`: the full URL is stored encrypted and never shown again.',
    }),
    types: z.array(z.enum(EVENT_TYPES)).meta({ description: 'Event types sent; empty: every type.' }),
    description: z.string(),
    version: versionSchema,
    createdAt: dateTime,
    updatedAt: dateTime,
  })
  .openapi('Webhook');
export type WebhookRecord = z.infer<typeof webhookRecordSchema>;

export const createdWebhookRecordSchema = webhookRecordSchema
  .extend({
    secret: z
      .string()
      .nullable()
      .meta({
        description:
          'The signing secret (`whsec_...`), shown in this answer only: verify `Statusvane-Signature` with it ' +
          '(README). A replay of the request (same `Idempotency-Key`) answers null: delete the webhook and create ' +
          'another if it was lost.',
      }),
  })
  .openapi('CreatedWebhook');
export type CreatedWebhookRecord = z.infer<typeof createdWebhookRecordSchema>;

export const webhookRecordSelect = {
  id: true,
  urlDisplay: true,
  types: true,
  description: true,
  version: true,
  createdAt: true,
  updatedAt: true,
} satisfies Prisma.WebhookSelect;
type WebhookRow = Prisma.WebhookGetPayload<{ select: typeof webhookRecordSelect }>;

/** findOwn's lookup of one of the caller's webhooks. */
export const webhookLookup: OwnLookup<Pick<PrismaClient, 'webhook'>, WebhookRow> = {
  noun: 'webhook',
  find: (db, where) => db.webhook.findFirst({ where, select: webhookRecordSelect }),
};

export function toWebhookRecord(row: WebhookRow): WebhookRecord {
  return {
    id: row.id,
    url: row.urlDisplay,
    types: row.types as WebhookRecord['types'],
    description: row.description,
    version: row.version,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export const webhookDeliveryRecordSchema = z
  .object({
    id: z.uuid().meta({ description: 'Also sent as `Statusvane-Delivery`: the same on every attempt.' }),
    eventId: z.uuid(),
    eventType: z.enum(EVENT_TYPES),
    status: z.enum(['pending', 'sent', 'failed']).meta({
      description: '`pending` (being sent or waiting for a retry), `sent` (a 2xx), `failed` (gave up).',
    }),
    attempts: z.number().int(),
    responseStatus: z.number().int().nullable().meta({ description: 'HTTP status of the last attempt.' }),
    reason: z.string().nullable().meta({ description: 'Why the last attempt failed: `http_500`, `timeout` ...' }),
    replay: z.boolean().meta({ description: 'Sent again by a replay.' }),
    createdAt: dateTime,
    lastAttemptAt: dateTime.nullable(),
    nextAttemptAt: dateTime.nullable().meta({ description: 'When a pending delivery is tried next.' }),
    deliveredAt: dateTime.nullable(),
  })
  .openapi('WebhookDelivery');
export type WebhookDeliveryRecord = z.infer<typeof webhookDeliveryRecordSchema>;

export const webhookDeliverySelect = {
  id: true,
  eventId: true,
  eventType: true,
  status: true,
  attempts: true,
  responseStatus: true,
  reason: true,
  generation: true,
  createdAt: true,
  lastAttemptAt: true,
  nextAttemptAt: true,
  deliveredAt: true,
} satisfies Prisma.WebhookDeliverySelect;
type DeliveryRow = Prisma.WebhookDeliveryGetPayload<{ select: typeof webhookDeliverySelect }>;

export function toWebhookDeliveryRecord(d: DeliveryRow): WebhookDeliveryRecord {
  return {
    id: d.id,
    eventId: d.eventId,
    eventType: d.eventType as WebhookDeliveryRecord['eventType'],
    status: d.status,
    attempts: d.attempts,
    responseStatus: d.responseStatus,
    reason: d.reason,
    replay: d.generation > 0,
    createdAt: d.createdAt.toISOString(),
    lastAttemptAt: d.lastAttemptAt?.toISOString() ?? null,
    nextAttemptAt: d.status === 'pending' ? d.nextAttemptAt.toISOString() : null,
    deliveredAt: d.deliveredAt?.toISOString() ?? null,
  };
}
