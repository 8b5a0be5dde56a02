import { hashToken, LINK_TOKEN_SHAPE, parseOrThrow, uuidInputSchema } from '@statusvane/shared';
import { z } from 'zod';

const oneOrMany = <T extends z.ZodType>(item: T) =>
  z.preprocess((v) => (typeof v === 'string' ? [v] : v), z.array(item).max(200));

/**
 * `{ email }` or `{ webhookUrl }`, optional `componentIds` (none: every component of the page). Forms send one
 * `componentIds` field per box ticked, so a single string is read as a list of one. Strict: unknown keys are 400.
 */
export const subscribeInputSchema = z
  .object({
    email: z.string().trim().max(320).pipe(z.email('Must be an email address')).optional(),
    webhookUrl: z.string().trim().min(1).max(2048).optional(),
    componentIds: oneOrMany(uuidInputSchema).optional(),
  })
  .strict()
  .superRefine((v, ctx) => {
    if ((v.email === undefined) === (v.webhookUrl === undefined))
      ctx.addIssue({
        code: 'custom',
        path: [v.email === undefined ? 'email' : 'webhookUrl'],
        message: 'Give either email or webhookUrl',
      });
    const ids = v.componentIds ?? [];
    ids.forEach((id, i) => {
      if (ids.indexOf(id) !== i)
        ctx.addIssue({ code: 'custom', path: ['componentIds', i], message: 'Repeated component id' });
    });
  });
export type SubscribeInput = z.output<typeof subscribeInputSchema>;

export function parseSubscribeInput(body: unknown): SubscribeInput {
  // A form may post empty fields for what the visitor did not fill in.
  const input =
    body && typeof body === 'object' && !Array.isArray(body)
      ? Object.fromEntries(Object.entries(body).filter(([, v]) => v !== ''))
      : body;
  return parseOrThrow(subscribeInputSchema, input, 'subscription');
}

/** The one key per address and page: the same address subscribes once. */
export const addressHash = (kind: 'email' | 'webhook', address: string) =>
  hashToken(`${kind}:${kind === 'email' ? address.toLowerCase() : address}`);

/** The hash a link token (confirm or unsubscribe) is stored by; null for a string that cannot be one. */
export const linkTokenHash = (token: string) => (LINK_TOKEN_SHAPE.test(token) ? hashToken(token) : null);
