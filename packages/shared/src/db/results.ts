/**
 * How long after its slot a result may be stored in normal operation: a scheduled check within seconds (its queue's
 * lag), a missed slot at most one interval after it (1 day at most), a heartbeat's deadline judged by the backstop run
 * one interval plus the grace after its slot (1 day + 1 day at most). Later results (workers down for days) are still
 * stored; this bounds where readers look for them (the `hour` response-times view) and when housekeeping packs a day
 * (docs/adr/0017-packed-results.md).
 */
export const MAX_RESULT_LAG_MS = 2 * 86_400_000;
