import { extendZodWithOpenApi, zodToOpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

/*
 * The API's Zod base, the bottom layer of apps/api/src (it imports nothing of the app): the records of services/, the
 * routes' request schemas and the envelopes of ./envelopes.ts all build on this `z`, and the OpenAPI document
 * (routes/docs/openapi-document.ts) is generated from them.
 *
 * `.openapi()` needs the prototype extension. Zod copies prototype methods onto an instance when it is created, so
 * only schemas created after this line have `.openapi()`: the app's schemas import `z` from here, and the schemas of
 * packages/shared (created earlier, at import) are named with `nameSchema` instead. Metadata only: parsing behaviour
 * is unchanged.
 */
extendZodWithOpenApi(z);

export { z };

/**
 * Gives an existing schema instance a component name (and a description) in place, without cloning it: a clone
 * would leave the instance that other schemas (a discriminated union's options, say) point at anonymous.
 */
export function nameSchema<T extends z.ZodType>(schema: T, refId: string, description?: string): T {
  const current = zodToOpenAPIRegistry.get(schema) ?? {};
  zodToOpenAPIRegistry.add(schema, {
    ...current,
    _internal: { ...current._internal, refId },
    ...(description ? { description } : {}),
  });
  return schema;
}

/**
 * Describes an existing schema instance in place (see nameSchema), e.g. a field of a shared query schema. `refused`:
 * a field the schema holds only to answer it with a precise 400 is documented as taking no value (`not: {}`).
 */
export function describeSchema<T extends z.ZodType>(schema: T, description: string, refused = false): T {
  zodToOpenAPIRegistry.add(schema, {
    ...zodToOpenAPIRegistry.get(schema),
    description,
    ...(refused ? { not: {} } : {}),
  });
  return schema;
}

/** A record's time: the records write `Date.toISOString()`, UTC with a `Z`. */
export const dateTime = z.iso.datetime();

/** Every mutable record's `version`: its GET answers it as `ETag`, and PATCH and DELETE take it in `If-Match`. */
export const versionSchema = z
  .number()
  .int()
  .min(1)
  .openapi({
    description:
      'Starts at 1 and grows by 1 with every change made through the API, the admin CLI or config/apply (not with what ' +
      'checks observe). Answered as `ETag: "<version>"`; send it in `If-Match` to write only over this version.',
  });
