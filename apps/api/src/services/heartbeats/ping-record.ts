import type { Prisma } from '@statusvane/shared';
import { dateTime, z } from '../../schemas/zod.js';

export const heartbeatPingRecordSchema = z
  .object({
    id: z.uuid(),
    at: dateTime.openapi({ description: 'When the ping was received.' }),
    kind: z.enum(['start', 'success', 'fail']).openapi({
      description: '`start` (`/start`), `success` (`/` or `/0`) or `fail` (`/fail` or `/1`..`/255`).',
    }),
    exitCode: z.number().int().nullable().openapi({ description: 'The exit code of `/<exitCode>`; null otherwise.' }),
    durationMs: z.number().int().nullable().openapi({
      description: 'An end ping: the time since the start it paired with (same `rid`, or both without); else null.',
    }),
    rid: z.uuid().nullable().openapi({ description: 'The `?rid=` run id, or null.' }),
    body: z.string().nullable().openapi({
      description: "The POST body's first 10,000 bytes (the run's log), as UTF-8; null when none was sent.",
    }),
    remoteAddress: z.string().nullable(),
    userAgent: z.string().nullable().openapi({ description: 'The User-Agent header, first 200 characters.' }),
  })
  .openapi('HeartbeatPing');
export type HeartbeatPingRecord = z.infer<typeof heartbeatPingRecordSchema>;

export const heartbeatPingSelect = {
  id: true,
  at: true,
  kind: true,
  exitCode: true,
  durationMs: true,
  rid: true,
  body: true,
  remoteAddress: true,
  userAgent: true,
} satisfies Prisma.HeartbeatPingSelect;

export function toHeartbeatPingRecord(
  row: Prisma.HeartbeatPingGetPayload<{ select: typeof heartbeatPingSelect }>,
): HeartbeatPingRecord {
  return { ...row, at: row.at.toISOString() };
}
