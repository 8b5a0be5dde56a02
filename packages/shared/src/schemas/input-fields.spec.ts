import { describe, expect, it } from '@jest/globals';
import { dateTimeInputSchema, isStorableInstant, STORABLE_INSTANTS, uuidInputSchema } from './input-fields.js';
import { createMaintenanceSchema, updateMaintenanceSchema } from './maintenance.js';

const RANGE = 'must fall between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z once converted to UTC';
const messages = (r: { success: boolean; error?: { issues: Array<{ message: string }> } }) =>
  r.error?.issues.map((i) => i.message) ?? [];

describe('dateTimeInputSchema', () => {
  it.each([
    ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000Z'],
    ['0001-01-01T01:00:00+01:00', '0001-01-01T00:00:00.000Z'],
    ['0000-12-31T23:00:00-01:00', '0001-01-01T00:00:00.000Z'],
    ['9999-12-31T23:59:59.999Z', '9999-12-31T23:59:59.999Z'],
    ['9999-12-31T23:59:59.999+00:00', '9999-12-31T23:59:59.999Z'],
    ['2026-05-01T12:00:00+02:00', '2026-05-01T10:00:00.000Z'],
  ])('accepts %s (the instant %s)', (input, instant) => {
    expect(dateTimeInputSchema.parse(input).toISOString()).toBe(instant);
  });

  it.each([
    // Year 0 in UTC, written directly or reached through an offset.
    '0000-01-01T00:00:00Z',
    '0000-12-31T23:59:59.999Z',
    '0001-01-01T00:30:00+01:00',
    '0001-01-01T00:00:00.000+00:01',
    // Year 10000 in UTC, reached through an offset.
    '9999-12-31T23:59:59-01:00',
    '9999-12-31T23:30:00-00:31',
  ])('refuses %s: outside the storable range, with a message that says so', (input) => {
    expect(messages(dateTimeInputSchema.safeParse(input))).toEqual([RANGE]);
  });

  it.each([
    '+275760-09-13T00:00:00Z',
    '10000-01-01T00:00:00Z',
    '-000001-01-01T00:00:00Z',
    '2031-05-01T10:00:00',
    '2031-02-30T10:00:00Z',
    '',
    1893456000000,
  ])('refuses %j as not an ISO 8601 date-time with an offset', (input) => {
    const r = dateTimeInputSchema.safeParse(input);
    expect(r.success).toBe(false);
    expect(messages(r)).not.toContain(RANGE);
  });

  it('isStorableInstant agrees with the bounds to the millisecond', () => {
    const { min, max } = STORABLE_INSTANTS;
    expect(
      [new Date(min.getTime() - 1), min, max, new Date(max.getTime() + 1), new Date(NaN), '2026-01-01'].map(
        isStorableInstant,
      ),
    ).toEqual([false, true, true, false, false, false]);
  });
});

describe('the maintenance schemas use it', () => {
  it('POST: an out-of-range time is one issue on its own field, not also "must be after startsAt"', () => {
    const r = createMaintenanceSchema.safeParse({
      title: 'x',
      startsAt: '9999-12-31T23:59:59-01:00',
      endsAt: '2031-01-01T00:00:00Z',
    });
    expect(r.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([['startsAt', RANGE]]);
    const e = createMaintenanceSchema.safeParse({
      title: 'x',
      startsAt: '2031-01-01T00:00:00Z',
      endsAt: '0000-01-01T00:00:00Z',
    });
    expect(e.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([['endsAt', RANGE]]);
  });

  it('PATCH: both times', () => {
    const r = updateMaintenanceSchema.safeParse({
      startsAt: '0000-06-01T00:00:00Z',
      endsAt: '9999-12-31T23:59:59.999-00:01',
    });
    expect(r.error?.issues.map((i) => i.path.join('.')).sort()).toEqual(['endsAt', 'startsAt']);
  });
});

describe('uuidInputSchema', () => {
  it('lower-cases a valid uuid and refuses anything else', () => {
    expect(uuidInputSchema.parse('8B1F2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D')).toBe('8b1f2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d');
    expect(uuidInputSchema.parse('8b1f2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d')).toBe('8b1f2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d');
    for (const bad of ['not-a-uuid', '8B1F2C3D4E5F4A6B8C7D9E0F1A2B3C4D', '', 42])
      expect(uuidInputSchema.safeParse(bad).success).toBe(false);
  });

  it('is what the maintenance componentIds use', () => {
    const r = createMaintenanceSchema.parse({
      title: 'x',
      startsAt: '2031-01-01T00:00:00Z',
      endsAt: '2031-01-02T00:00:00Z',
      componentIds: ['8B1F2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D'],
    });
    expect(r.componentIds).toEqual(['8b1f2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d']);
    expect(
      updateMaintenanceSchema.parse({ componentIds: ['ABCDEF01-2345-4678-89AB-CDEF01234567'] }).componentIds,
    ).toEqual(['abcdef01-2345-4678-89ab-cdef01234567']);
  });
});
