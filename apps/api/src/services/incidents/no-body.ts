import { z } from 'zod';
import { parseOrThrow } from '@statusvane/shared';

/** The incident actions take no body; an empty JSON object is tolerated, any field is a 400. */
export function assertNoBody(body: unknown): void {
  parseOrThrow(z.object({}).strict(), body ?? {}, 'body');
}
