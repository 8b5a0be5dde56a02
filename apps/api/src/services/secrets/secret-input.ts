import { SECRET_NAME } from '@statusvane/shared';
import { z } from '../../schemas/zod.js';

/** Limits of workspace secrets (spec section 9). */
export const SECRET_LIMITS = { valueMax: 8192, hostsMax: 20 } as const;

// A host name (labels of letters, digits and hyphens) or an IP address; no scheme, port or path.
const HOST =
  /^(?=.{1,253}$)([A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;
const hostSchema = z
  .string()
  .min(1)
  .max(253)
  .refine((h) => HOST.test(h) || /^[0-9a-fA-F:.]+$/.test(h), 'must be a host name (no scheme, port or path)')
  .transform((h) => h.toLowerCase().replace(/\.$/, ''));

const allowedHosts = z.array(hostSchema).min(1).max(SECRET_LIMITS.hostsMax).openapi({
  description: 'Host names the value may be sent to: a request elsewhere fails `secret_host_not_allowed`.',
});
const value = z.string().min(1).max(SECRET_LIMITS.valueMax).openapi({
  description: 'Write-only: encrypted at rest, never answered, logged, stored in results or sent in events.',
});

export const createSecretSchema = z
  .object({
    name: z
      .string()
      .regex(SECRET_NAME, 'must match [A-Z][A-Z0-9_]{0,63}')
      .openapi({ description: 'Used as `{{secrets.NAME}}`; unique in the workspace.', example: 'API_TOKEN' }),
    value,
    allowedHosts,
  })
  .strict()
  .openapi('CreateSecretInput');
export type CreateSecretInput = z.output<typeof createSecretSchema>;

/** PUT replaces the secret whole: its value and its hosts. */
export const replaceSecretSchema = z.object({ value, allowedHosts }).strict().openapi('ReplaceSecretInput');
export type ReplaceSecretInput = z.output<typeof replaceSecretSchema>;
