import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { AppError, codeToStatus, ERROR_CODES, NotFoundError, UnavailableError, ValidationError } from './app-error.js';
import { formatPath, parseOrThrow } from './zod-issues.js';

describe('error envelope', () => {
  it('maps the eight codes to their statuses', () => {
    expect(ERROR_CODES).toHaveLength(8);
    expect(codeToStatus).toEqual({
      invalid_request: 400,
      unauthorized: 401,
      forbidden: 403,
      not_found: 404,
      conflict: 409,
      precondition_failed: 412,
      rate_limited: 429,
      internal: 500,
    });
  });

  it('renders { error: { code, message, details? } }', () => {
    expect(new AppError('conflict', 'taken').toEnvelope()).toEqual({ error: { code: 'conflict', message: 'taken' } });
    expect(new AppError('invalid_request', 'bad', { workspaces: [] }).toEnvelope()).toEqual({
      error: { code: 'invalid_request', message: 'bad', details: { workspaces: [] } },
    });
    expect(new NotFoundError('monitor', 'x').httpStatus).toBe(404);
    const unavailable = new UnavailableError('redis');
    expect([unavailable.code, unavailable.httpStatus]).toEqual(['internal', 503]);
  });

  it('echoes a short plain id in a 404 message, and nothing of a long, path-like or unprintable one', () => {
    expect(new NotFoundError('monitor', '1f0c7a52-3d3c-4c55-9d87-5d2f2b0a8e11').message).toBe(
      'monitor 1f0c7a52-3d3c-4c55-9d87-5d2f2b0a8e11 was not found',
    );
    for (const raw of ['x'.repeat(5000), '../../healthz', 'a\u0000b', 'a b', '<script>', ''])
      expect([raw.slice(0, 20), new NotFoundError('monitor', raw).message]).toEqual([
        raw.slice(0, 20),
        'monitor was not found',
      ]);
  });

  it('turns Zod failures into one issue per offending field, unknown keys included', () => {
    const schema = z.object({ name: z.string().max(3), n: z.number(), tags: z.array(z.string()) }).strict();
    let caught: unknown;
    try {
      parseOrThrow(schema, { name: 'toolong', n: 'x', tags: ['a', 1], extra: true });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(ValidationError);
    const issues = (caught as ValidationError).details!.issues as Array<{ path: string }>;
    expect(issues.map((i) => i.path).sort()).toEqual(['extra', 'n', 'name', 'tags[1]']);
    expect((caught as ValidationError).message).toMatch(/name/);
  });

  it('formats paths like clients write them', () => {
    expect(formatPath(['a', 0, 'b'])).toBe('a[0].b');
    expect(formatPath([])).toBe('');
  });
});
