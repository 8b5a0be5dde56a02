import { EVENT_TYPE_PREFIX, EVENT_TYPES } from '@statusvane/shared';
import { z } from '../../schemas/zod.js';

/** A CloudEvents 1.0 event (structured JSON), as GET /events lists it and webhooks deliver it. */
export const eventRecordSchema = z
  .object({
    specversion: z.literal('1.0'),
    id: z.uuid().meta({ description: 'Unique per event; a delivery sent twice carries the same id.' }),
    type: z.enum(EVENT_TYPES.map((t) => `${EVENT_TYPE_PREFIX}${t}`) as [string, ...string[]]),
    source: z.string().meta({ example: '/workspaces/6f1c2a4e-0000-4000-8000-000000000001' }),
    subject: z.string().meta({ example: 'monitors/1f0c7a52-3d3c-4c55-9d87-5d2f2b0a8e11' }),
    time: z.iso.datetime(),
    datacontenttype: z.literal('application/json'),
    sequence: z.string().meta({
      description: "The event's position in the log (extension attribute): a cursor; later events compare greater.",
    }),
    data: z.record(z.string(), z.unknown()).meta({
      description:
        'What happened: a `monitor` (monitor.created and monitor.updated: the record as the API shows it, with `pingUrl` ' +
        '`"<redacted>"`), an `incident` or a `maintenance` window. Secret fields always show `"<redacted>"`.',
    }),
  })
  .openapi('Event');
export type EventRecord = z.infer<typeof eventRecordSchema>;

export const eventPageSchema = z
  .object({
    data: z.array(eventRecordSchema),
    nextCursor: z.string().meta({
      description: 'Pass as `after` to get what follows; always present (the same cursor again when nothing is newer).',
    }),
  })
  .openapi('EventPage');
