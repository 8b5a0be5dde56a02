import type { PrismaClient } from '@statusvane/shared';
import { dateTime, versionSchema, z } from '../../schemas/zod.js';
import type { OwnLookup } from '../records.js';

/** `j***@example.com`: enough to recognise an address, not to harvest it. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return '***';
  return `${email[0]}***${email.slice(at)}`;
}

export const subscriberRecordSchema = z
  .object({
    id: z.uuid(),
    version: versionSchema,
    kind: z.enum(['email', 'webhook']),
    /** Masked: `j***@example.com`, or `https://host/…` for a webhook. */
    address: z.string(),
    componentIds: z.array(z.uuid()),
    confirmed: z.boolean(),
    confirmedAt: dateTime.nullable(),
    createdAt: dateTime,
  })
  .openapi('Subscriber');
export type SubscriberRecord = z.infer<typeof subscriberRecordSchema>;

export const subscriberSelect = {
  id: true,
  version: true,
  kind: true,
  email: true,
  webhookDisplay: true,
  confirmedAt: true,
  createdAt: true,
  components: { select: { componentId: true } },
} as const;

/** findOwn's lookup of a subscriber of one of the caller's pages (another page's subscriber is not found). */
export const pageSubscriberLookup = (statusPageId: string) =>
  ({
    noun: 'subscriber',
    find: (db, where) =>
      db.statusPageSubscriber.findFirst({ where: { ...where, statusPageId }, select: subscriberSelect }),
  }) satisfies OwnLookup<Pick<PrismaClient, 'statusPageSubscriber'>, unknown>;

export function toSubscriberRecord(r: {
  id: string;
  version: number;
  kind: 'email' | 'webhook';
  email: string | null;
  webhookDisplay: string | null;
  confirmedAt: Date | null;
  createdAt: Date;
  components: Array<{ componentId: string }>;
}): SubscriberRecord {
  return {
    id: r.id,
    version: r.version,
    kind: r.kind,
    address: r.kind === 'email' ? maskEmail(r.email ?? '') : (r.webhookDisplay ?? '…'),
    componentIds: r.components.map((c) => c.componentId).sort(),
    confirmed: r.confirmedAt !== null,
    confirmedAt: r.confirmedAt?.toISOString() ?? null,
    createdAt: r.createdAt.toISOString(),
  };
}
