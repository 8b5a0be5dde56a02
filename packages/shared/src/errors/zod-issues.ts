import type { z } from 'zod';
import { ValidationError, type Issue } from './app-error.js';

/** Renders a Zod path as `a.b[0].c`, the way clients write it. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out;
}

/** Every offending field, one issue each; unknown keys are reported at their own path. */
export function issuesFromZod(error: z.ZodError): Issue[] {
  const issues: Issue[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        issues.push({ path: formatPath([...issue.path, key]), message: 'Unknown field' });
      }
      continue;
    }
    issues.push({ path: formatPath(issue.path), message: issue.message });
  }
  return issues;
}

/** Parses with a schema or throws a 400 that names every offending field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, what = 'request'): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issues = issuesFromZod(result.error);
  const fields = [...new Set(issues.map((i) => i.path || '(body)'))];
  throw new ValidationError(`Invalid ${what}: ${fields.join(', ')}`, issues);
}
