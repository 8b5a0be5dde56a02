/**
 * How long console sign-ins last (beyond-the-seed §7): the API reads sessions by these rules, and the worker's
 * housekeeping deletes the rows past them. A session ends after 12 hours without a request, and 30 days after
 * sign-in whatever happens.
 */
export const SESSION_IDLE_MS = 12 * 3_600_000;
export const SESSION_ABSOLUTE_MS = 30 * 86_400_000;
