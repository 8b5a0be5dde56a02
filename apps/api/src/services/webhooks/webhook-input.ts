import { EVENT_TYPES, eventTypeSchema, ValidationError, type SsrfGuard, shownText } from '@statusvane/shared';
import { z } from 'zod';

const types = z
  .array(eventTypeSchema)
  .max(EVENT_TYPES.length)
  .refine((t) => new Set(t).size === t.length, 'Repeated event type');

export const createWebhookSchema = z
  .object({
    url: z.string().trim().min(1).max(2048),
    types: types.optional(),
    description: z.string().trim().max(500).superRefine(shownText).optional(),
  })
  .strict();
export type CreateWebhookInput = z.output<typeof createWebhookSchema>;

export const updateWebhookSchema = createWebhookSchema.partial().strict();
export type UpdateWebhookInput = z.output<typeof updateWebhookSchema>;

/**
 * A webhook URL must be http(s) without credentials and pass the SSRF guard (a public address, or one of
 * ALLOWED_TARGET_CIDRS): SsrfGuard.checkUrl judges all of it, as for subscribers' webhooks. It is checked again on
 * every connection.
 */
export async function assertWebhookUrl(guard: SsrfGuard, url: string): Promise<void> {
  const check = await guard.checkUrl(url);
  if (!check.ok) throw new ValidationError('Invalid webhook: url', [{ path: 'url', message: check.reason }]);
}
