import { Router } from 'express';
import { NotFoundError } from '@statusvane/shared';
import type { ApiDeps } from '../../deps.js';
import { getCalendarFeed } from '../../services/calendar-feeds/get-calendar-feed.js';

/**
 * `<PUBLIC_BASE_URL>/ical/<token>.ics`: on-call shifts as iCalendar for calendar apps, which send no credentials;
 * the token in the address is the feed's secret (beyond-the-seed section 10). Not under /api/v1: no envelope.
 */
export function calendarFeedsRouter(deps: ApiDeps): Router {
  const router = Router();
  const clock = deps.clock ?? (() => new Date());
  router.get('/ical/:file', async (req, res) => {
    const m = /^(.+)\.ics$/.exec(String(req.params.file));
    const feed = m
      ? await getCalendarFeed(deps, { ctx: { now: clock() }, input: { token: m[1]! } }).catch((err: unknown) => {
          if (err instanceof NotFoundError) return null;
          throw err;
        })
      : null;
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('X-Robots-Tag', 'noindex, nofollow');
    if (!feed) return void res.status(404).type('text/plain').send('No such calendar feed\n');
    res.setHeader('Cache-Control', 'private, max-age=300');
    res.type('text/calendar; charset=utf-8').send(feed.body);
  });
  return router;
}
