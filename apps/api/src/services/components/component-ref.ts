import { z } from '../../schemas/zod.js';

/** A public component as other records name it (maintenance windows, status page sections). */
export const componentRefSchema = z
  .object({ id: z.uuid(), name: z.string() })
  .openapi('ComponentRef', { description: 'A public component.' });
