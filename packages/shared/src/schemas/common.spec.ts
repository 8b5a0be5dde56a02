import { describe, expect, it } from '@jest/globals';
import { paginationQuerySchema } from './common.js';
import { issuesFromZod } from '../errors/index.js';

const issues = (query: Record<string, unknown>) => {
  const r = paginationQuerySchema.safeParse(query);
  return r.success ? [] : issuesFromZod(r.error);
};

describe('paginationQuerySchema', () => {
  it('takes decimal digits, with the defaults when absent', () => {
    expect(paginationQuerySchema.parse({})).toEqual({ page: 1, perPage: 25 });
    expect(paginationQuerySchema.parse({ page: '7', perPage: '250' })).toEqual({ page: 7, perPage: 250 });
    expect(paginationQuerySchema.parse({ page: '007' })).toEqual({ page: 7, perPage: 25 });
    expect(paginationQuerySchema.parse({ page: String(Number.MAX_SAFE_INTEGER) }).page).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('refuses every other spelling of a number (exponent, hex, sign, fraction, blanks)', () => {
    for (const value of ['1e2', '0x10', '0b1', '0o7', '+5', '-1', '5.0', '1_0', ' 5', '5 ', '', 'Infinity', 'NaN']) {
      expect([value, issues({ perPage: value })]).toEqual([
        value,
        [{ path: 'perPage', message: 'must be a whole number in decimal digits' }],
      ]);
    }
  });

  it('names a parameter given more than once, instead of judging NaN', () => {
    expect(issues({ page: ['1', '2'] })).toEqual([{ path: 'page', message: 'was given more than once' }]);
    expect(issues({ page: ['1', '2'], perPage: ['3', '3'] }).map((i) => i.path)).toEqual(['page', 'perPage']);
  });

  it('keeps the limits and refuses unknown parameters', () => {
    expect(issues({ perPage: '251' })[0]?.path).toBe('perPage');
    expect(issues({ page: '0' })[0]?.path).toBe('page');
    expect(issues({ page: '9007199254740993' })[0]?.path).toBe('page');
    expect(issues({ sort: 'name' })).toEqual([{ path: 'sort', message: 'Unknown field' }]);
  });
});
