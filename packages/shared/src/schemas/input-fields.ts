import { z } from 'zod';

/**
 * The instants PostgreSQL's `timestamptz` stores and Prisma reads back here: years 1 to 9999 in UTC. Zod's ISO
 * check takes any four-digit year and any offset, so `0000-01-01T00:00:00Z` or `9999-12-31T23:59:59-01:00`
 * (year 10000 in UTC) would otherwise reach the database and fail there as a 500.
 */
export const STORABLE_INSTANTS = {
  min: new Date('0001-01-01T00:00:00.000Z'),
  max: new Date('9999-12-31T23:59:59.999Z'),
} as const;

/** True for a valid Date inside STORABLE_INSTANTS (what dateTimeInputSchema lets through). */
export function isStorableInstant(d: unknown): d is Date {
  return (
    d instanceof Date &&
    d.getTime() >= STORABLE_INSTANTS.min.getTime() &&
    d.getTime() <= STORABLE_INSTANTS.max.getTime()
  );
}

const rangeMessage = 'must fall between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z once converted to UTC';

/**
 * A date-time input: ISO 8601 with an offset (`Z` or `+02:00`; a time without one is ambiguous and refused),
 * parsed to a Date within the storable range. Every date input of the API goes through this one schema.
 */
export const dateTimeInputSchema = z.iso
  .datetime({ offset: true, message: 'must be an ISO 8601 date-time with an offset, e.g. 2026-05-01T10:00:00Z' })
  .transform((s) => new Date(s))
  .pipe(z.date().min(STORABLE_INSTANTS.min, rangeMessage).max(STORABLE_INSTANTS.max, rangeMessage));

/**
 * A uuid input, lower-cased: ids are stored and compared in lower case, and RFC 9562 says uuids compare
 * case-insensitively, so `8B1F...` names the same component as `8b1f...`.
 */
export const uuidInputSchema = z.uuid().transform((s) => s.toLowerCase());
