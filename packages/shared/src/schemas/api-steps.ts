import { z } from 'zod';
import { JsonPathSyntaxError, parseJsonPath } from '../json-assertion/json-assertion.js';
import { STEP_ASSERTION_OPERATORS, STEP_ASSERTION_SOURCES } from '../api-checks/step-assertions.js';
import { EXTRACT_NAME, fillTemplates, templateRefs } from '../api-checks/templates.js';
import { re2Problem } from '../api-checks/re2.js';
import { responseSchemaProblem } from '../api-checks/response-schema.js';
import { headersSchema, httpUrlProblems, REQUEST_LIMITS, statusCodesSchema } from './request-fields.js';
import { shownText } from './shown-text.js';

/** Limits of api monitors' steps (spec section 9). */
export const API_STEP_LIMITS = {
  stepsMin: 1,
  stepsMax: 10,
  nameMax: 100,
  assertionsMax: 20,
  extractsMax: 20,
  bodyMax: 32_768,
  valueMax: 1000,
  pathMax: 500,
} as const;
const L = API_STEP_LIMITS;

export const STEP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
export type StepMethod = (typeof STEP_METHODS)[number];

/** A JSON path as `jsonAssertion` takes it (`$.items[0].id`), parsed by the parser the probes use. */
export const jsonPathSchema = z
  .string()
  .min(1)
  .max(L.pathMax)
  .superRefine((p, ctx) => {
    try {
      parseJsonPath(p);
    } catch (err) {
      if (!(err instanceof JsonPathSyntaxError)) throw err;
      ctx.addIssue({ code: 'custom', message: `not a valid path: ${err.message}` });
    }
  });

/** The value rules of an assertion's operator (jsonAssertion's and api steps'), as issues at `value`. */
export function assertionValueIssues(operator: string, value: unknown): string[] {
  const needsValue = operator !== 'exists' && operator !== 'notExists';
  if (needsValue && value === undefined) return [`operator ${operator} needs a value`];
  if (!needsValue && value !== undefined) return [`operator ${operator} takes no value`];
  if (['gt', 'gte', 'lt', 'lte'].includes(operator) && typeof value !== 'number')
    return [`operator ${operator} compares numbers`];
  if (operator === 'matches') {
    if (typeof value !== 'string') return ['operator matches takes a pattern (a string, RE2 syntax)'];
    const problem = re2Problem(value);
    if (problem) return [`not an RE2 pattern: ${problem}`];
  }
  return [];
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;
const assertionValue = z.union([z.string().max(L.valueMax), z.number(), z.boolean(), z.null()]);

export const stepAssertionSchema = z
  .object({
    source: z.enum(STEP_ASSERTION_SOURCES),
    property: z
      .string()
      .min(1)
      .max(L.pathMax)
      .optional()
      .meta({ description: 'header: the header name; json: a path such as `$.items[0].id`; absent otherwise.' }),
    operator: z.enum(STEP_ASSERTION_OPERATORS),
    value: assertionValue.optional(),
  })
  .strict()
  .superRefine((a, ctx) => {
    const needsProperty = a.source === 'header' || a.source === 'json';
    if (needsProperty && a.property === undefined)
      ctx.addIssue({ code: 'custom', path: ['property'], message: `source ${a.source} needs a property` });
    if (!needsProperty && a.property !== undefined)
      ctx.addIssue({ code: 'custom', path: ['property'], message: `source ${a.source} takes no property` });
    if (a.source === 'header' && a.property !== undefined && !HEADER_NAME.test(a.property))
      ctx.addIssue({ code: 'custom', path: ['property'], message: 'not a valid header name' });
    if (a.source === 'json' && a.property !== undefined) {
      const parsed = jsonPathSchema.safeParse(a.property);
      if (!parsed.success)
        for (const i of parsed.error.issues) ctx.addIssue({ code: 'custom', path: ['property'], message: i.message });
    }
    for (const message of assertionValueIssues(a.operator, a.value))
      ctx.addIssue({ code: 'custom', path: ['value'], message });
  })
  .meta({ id: 'StepAssertion' });

export const stepExtractSchema = z
  .object({
    as: z
      .string()
      .regex(EXTRACT_NAME, 'must match [a-z][a-zA-Z0-9_]{0,63}')
      .refine((v) => v !== 'secrets', '"secrets" is reserved for {{secrets.NAME}}'),
    from: z.enum(['json', 'header']),
    path: z.string().min(1).max(L.pathMax).meta({ description: 'json: a path (`$.token`); header: a header name.' }),
  })
  .strict()
  .superRefine((e, ctx) => {
    if (e.from === 'header' && !HEADER_NAME.test(e.path))
      ctx.addIssue({ code: 'custom', path: ['path'], message: 'not a valid header name' });
    if (e.from === 'json') {
      const parsed = jsonPathSchema.safeParse(e.path);
      if (!parsed.success)
        for (const i of parsed.error.issues) ctx.addIssue({ code: 'custom', path: ['path'], message: i.message });
    }
  })
  .meta({ id: 'StepExtract' });

/** A JSON Schema (2020-12 or draft-07, at most 64 KB, local `$ref`s only) the response body must match. */
export const responseSchemaField = z
  .record(z.string(), z.unknown())
  .superRefine((schema, ctx) => {
    const problem = responseSchemaProblem(schema);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .meta({
    description:
      'A JSON Schema (2020-12 by default, or draft-07 by `$schema`; at most 64 KB; local `$ref`s only) the response ' +
      'body must match: otherwise the check fails with `schema_mismatch: <instance path>: <message>`.',
  });

/** A step's url: absolute http(s) once its templates are filled; one that starts with a template is judged when run. */
const stepUrlSchema = z
  .string()
  .min(1)
  .max(REQUEST_LIMITS.targetMax)
  .superRefine((url, ctx) => {
    if (url.trimStart().startsWith('{{')) return;
    for (const message of httpUrlProblems(fillTemplates(url, 'x'))) ctx.addIssue({ code: 'custom', message });
  });

export const apiStepSchema = z
  .object({
    name: z.string().trim().min(1).max(L.nameMax).superRefine(shownText),
    method: z.enum(STEP_METHODS),
    url: stepUrlSchema.meta({
      description:
        "May use `{{name}}` (an earlier step's extract) and `{{secrets.NAME}}`; the SSRF guard judges it when run.",
    }),
    headers: headersSchema
      .optional()
      .meta({ description: 'Write-only (records show `headerNames`); values may use templates.' }),
    body: z.string().max(L.bodyMax).optional().meta({
      description:
        'Write-only (records show `hasBody`); may use templates. Sent as application/json unless a Content-Type header says otherwise.',
    }),
    expectedStatusCodes: statusCodesSchema.optional(),
    assertions: z.array(stepAssertionSchema).max(L.assertionsMax).optional(),
    extract: z.array(stepExtractSchema).max(L.extractsMax).optional(),
    always: z
      .boolean()
      .optional()
      .meta({ description: 'Runs after an earlier step failed too (cleanup); its own failure never hides the first.' }),
    responseSchema: responseSchemaField.optional(),
  })
  .strict()
  .meta({ id: 'ApiStep' });
export type ApiStepInput = z.output<typeof apiStepSchema>;

/**
 * 1 to 10 steps, names unique; every template of a step names an extract of an earlier step or a secret (whose
 * existence the service judges: the schema cannot know the workspace's secrets); no body on GET or HEAD.
 */
export const apiStepsSchema = z
  .array(apiStepSchema)
  .min(L.stepsMin)
  .max(L.stepsMax)
  .superRefine((steps, ctx) => {
    const names = new Map<string, number>();
    const extracted = new Map<string, number>();
    steps.forEach((step, i) => {
      const first = names.get(step.name);
      if (first !== undefined)
        ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `duplicate step name (also steps[${first}])` });
      else names.set(step.name, i);
      if (step.body !== undefined && (step.method === 'GET' || step.method === 'HEAD'))
        ctx.addIssue({
          code: 'custom',
          path: [i, 'body'],
          message: `a request body needs a method other than ${step.method}`,
        });
      const texts: Array<{ path: PropertyKey[]; text: string }> = [
        { path: [i, 'url'], text: step.url },
        ...Object.entries(step.headers ?? {}).map(([k, v]) => ({ path: [i, 'headers', k], text: v })),
        ...(step.body !== undefined ? [{ path: [i, 'body'], text: step.body }] : []),
      ];
      for (const { path, text } of texts)
        for (const ref of templateRefs(text)) {
          if (ref.kind === 'invalid')
            ctx.addIssue({
              code: 'custom',
              path,
              message: `${ref.text} is not a template: use {{name}} (an earlier step's extract) or {{secrets.NAME}}`,
            });
          else if (ref.kind === 'extract' && !extracted.has(ref.name))
            ctx.addIssue({ code: 'custom', path, message: `{{${ref.name}}} is not extracted by an earlier step` });
        }
      step.extract?.forEach((e, j) => {
        const by = extracted.get(e.as);
        if (by !== undefined)
          ctx.addIssue({
            code: 'custom',
            path: [i, 'extract', j, 'as'],
            message: `"${e.as}" is already extracted by steps[${by}]`,
          });
        else extracted.set(e.as, i);
      });
    });
  });

/** A step as stored in the monitor row (`steps`): its write-only headers and body left out, their presence kept. */
export type StoredApiStep = Omit<ApiStepInput, 'headers' | 'body'> & { headerNames: string[]; hasBody: boolean };

/** The secrets `{{secrets.NAME}}` that steps name (url, header values, bodies). */
export function stepTexts(steps: readonly ApiStepInput[]): string[] {
  return steps.flatMap((s) => [s.url, ...Object.values(s.headers ?? {}), ...(s.body !== undefined ? [s.body] : [])]);
}
