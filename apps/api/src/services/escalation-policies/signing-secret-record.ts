import { SIGNATURE_HEADER, webhookSigningSecret } from '@statusvane/shared';
import { dateTime, z } from '../../schemas/zod.js';

export const signingSecretRecordSchema = z
  .object({
    secret: z
      .string()
      .nullable()
      .openapi({
        description:
          'The secret receivers verify `Statusvane-Signature` with (hex), shown in this answer only. A replay of a rotation ' +
          '(same `Idempotency-Key`) answers null: rotate again if it was lost.',
      }),
    generation: z.number().int().min(0).openapi({
      description: 'How many times it was rotated; 0: never (the secret the admin CLI printed until then).',
    }),
    rotatedAt: dateTime.nullable().openapi({ description: 'When it was last rotated; null: never.' }),
    algorithm: z.literal('HMAC-SHA256'),
    signatureHeader: z.literal(SIGNATURE_HEADER),
    signedPayload: z
      .literal('<t>.<raw body>')
      .openapi({ description: "What is signed: the header's `t`, a dot, and the raw request body." }),
  })
  .openapi('SigningSecret', {
    description:
      "The workspace's escalation webhook signing secret: every webhook page and notice carries `Statusvane-Signature: " +
      't=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`.',
  });
export type SigningSecretRecord = z.infer<typeof signingSecretRecordSchema>;

/** The record of a workspace's current secret, derived from the deployment's key and the generation. */
export function toSigningSecretRecord(
  encryptionKey: Buffer,
  workspace: { id: string; signingSecretGeneration: number; signingSecretRotatedAt: Date | null },
): SigningSecretRecord & { secret: string } {
  return {
    secret: webhookSigningSecret(encryptionKey, workspace.id, workspace.signingSecretGeneration),
    generation: workspace.signingSecretGeneration,
    rotatedAt: workspace.signingSecretRotatedAt?.toISOString() ?? null,
    algorithm: 'HMAC-SHA256',
    signatureHeader: SIGNATURE_HEADER,
    signedPayload: '<t>.<raw body>',
  };
}
