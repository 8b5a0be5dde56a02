import { describe, expect, it } from '@jest/globals';
import { MAINTENANCE_ACTIONS, MAINTENANCE_STATUSES } from '@statusvane/shared';
import { actionOutcome, isFinal, maintenanceStatus } from './maintenance-status.js';

const startsAt = new Date('2026-05-01T10:00:00.000Z');
const endsAt = new Date('2026-05-01T11:00:00.000Z');
const at = (iso: string) => new Date(iso);
const w = { startsAt, endsAt, cancelledAt: null };

describe('maintenanceStatus', () => {
  it.each([
    ['long before the start', '2026-04-01T00:00:00.000Z', 'scheduled'],
    ['1 ms before startsAt', '2026-05-01T09:59:59.999Z', 'scheduled'],
    ['exactly at startsAt', '2026-05-01T10:00:00.000Z', 'in_progress'],
    ['1 ms after startsAt', '2026-05-01T10:00:00.001Z', 'in_progress'],
    ['1 ms before endsAt', '2026-05-01T10:59:59.999Z', 'in_progress'],
    ['exactly at endsAt', '2026-05-01T11:00:00.000Z', 'completed'],
    ['long after the end', '2027-01-01T00:00:00.000Z', 'completed'],
  ])('%s: %s is %s', (_label, now, expected) => {
    expect(maintenanceStatus(w, at(now))).toBe(expected);
  });

  it('is cancelled whatever the clock says once cancelledAt is set', () => {
    const cancelled = { ...w, cancelledAt: at('2026-04-01T00:00:00.000Z') };
    for (const now of [
      '2026-03-01T00:00:00.000Z',
      '2026-05-01T10:00:00.000Z',
      '2026-05-01T11:00:00.000Z',
      '2030-01-01T00:00:00.000Z',
    ]) {
      expect(maintenanceStatus(cancelled, at(now))).toBe('cancelled');
    }
  });

  it('compares instants, not wall-clock text: offsets do not matter', () => {
    const shifted = {
      startsAt: new Date('2026-05-01T12:00:00+02:00'),
      endsAt: new Date('2026-05-01T13:00:00+02:00'),
      cancelledAt: null,
    };
    expect(maintenanceStatus(shifted, at('2026-05-01T10:00:00.000Z'))).toBe('in_progress');
    expect(maintenanceStatus(shifted, at('2026-05-01T09:59:59.999Z'))).toBe('scheduled');
    expect(maintenanceStatus(shifted, at('2026-05-01T11:00:00.000Z'))).toBe('completed');
  });
});

describe('actionOutcome', () => {
  it.each([
    ['scheduled', 'start', 'apply'],
    ['scheduled', 'complete', 'conflict'],
    ['scheduled', 'cancel', 'apply'],
    ['in_progress', 'start', 'noop'],
    ['in_progress', 'complete', 'apply'],
    ['in_progress', 'cancel', 'apply'],
    ['completed', 'start', 'conflict'],
    ['completed', 'complete', 'noop'],
    ['completed', 'cancel', 'conflict'],
    ['cancelled', 'start', 'conflict'],
    ['cancelled', 'complete', 'conflict'],
    ['cancelled', 'cancel', 'noop'],
  ] as const)('%s + %s -> %s', (status, action, expected) => {
    expect(actionOutcome(status, action)).toBe(expected);
  });

  it('covers every state and action', () => {
    for (const s of MAINTENANCE_STATUSES)
      for (const a of MAINTENANCE_ACTIONS) expect(['apply', 'noop', 'conflict']).toContain(actionOutcome(s, a));
  });

  it('treats completed and cancelled as final', () => {
    expect(MAINTENANCE_STATUSES.filter(isFinal)).toEqual(['completed', 'cancelled']);
  });
});
