import { z } from 'zod';

/**
 * The event log's types (spec section 5), by short name. On the wire (CloudEvents `type`) each is prefixed with
 * EVENT_TYPE_PREFIX; `GET /events?types=` and a webhook's `types` take the short names.
 */
export const EVENT_TYPES = [
  'incident.opened',
  'incident.acknowledged',
  'incident.resolved',
  'incident.updated',
  'monitor.status_changed',
  'monitor.created',
  'monitor.updated',
  'monitor.deleted',
  'maintenance.started',
  'maintenance.completed',
  'maintenance.cancelled',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];
export const EVENT_TYPE_PREFIX = 'com.statusvane.';

export const eventTypeSchema = z.enum(EVENT_TYPES, { error: `Must be one of ${EVENT_TYPES.join(', ')}` });

/** The event log (and webhook delivery history) is kept this long; housekeeping prunes the rest. */
export const EVENT_RETENTION_DAYS = 30;
