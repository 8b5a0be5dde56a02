import { channelTargetSchema, DELIVERY_CHANNELS, shownTarget, type Prisma } from '@statusvane/shared';
import { dateTime, z } from '../../schemas/zod.js';

/** Limits of a user's contact methods. */
export const CONTACT_METHODS_MAX = 10;

export const contactMethodRecordSchema = z
  .object({
    id: z.uuid(),
    channel: z.enum(DELIVERY_CHANNELS),
    display: z.string().openapi({
      description:
        'How the method is shown, never a secret (stored encrypted, as escalation targets): an email address in full, ' +
        'a URL as `scheme://host[:port]/…`, a key by its last four characters, a Telegram chat by its id.',
    }),
    createdAt: dateTime,
  })
  .openapi('ContactMethod');
export type ContactMethodRecord = z.infer<typeof contactMethodRecordSchema>;

export const putContactMethodsSchema = z
  .object({
    methods: z
      .array(channelTargetSchema)
      .max(CONTACT_METHODS_MAX)
      .openapi({
        description:
          'Every method, in the order pages go out; replaces the list. A method sent again as it is stored (same channel, ' +
          'same secret) keeps its id.',
      }),
  })
  .strict()
  .openapi('PutContactMethodsInput');
export type PutContactMethodsInput = z.output<typeof putContactMethodsSchema>;

export const contactMethodSelect = {
  id: true,
  channel: true,
  display: true,
  createdAt: true,
} as const satisfies Prisma.ContactMethodSelect;

export function toContactMethodRecord(
  row: Prisma.ContactMethodGetPayload<{ select: typeof contactMethodSelect }>,
): ContactMethodRecord {
  // Only channel targets are ever stored as contact methods (putContactMethodsSchema).
  const channel = row.channel as ContactMethodRecord['channel'];
  return { id: row.id, channel, display: shownTarget(channel, row.display), createdAt: row.createdAt.toISOString() };
}
