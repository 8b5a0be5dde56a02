import type { RequestHandler } from 'express';
import {
  addMonths,
  historyBounds,
  loadPublicHistory,
  loadPublicIncident,
  parseHistoryMonth,
} from '../../services/status-pages/public-history.js';
import { monthName, renderHistoryPage, renderIncidentPage } from '../../views/status-page/incident-pages.js';
import { renderMessage } from '../../views/status-page/page-forms.js';
import { mastheadOf, openPage, type PageRouteOptions } from './page-context.js';
import { renderedAnswer, sendRendered } from '../../middleware/rendered-answer.js';
import { publicAssets, sendNotFound } from './respond.js';

/**
 * The pages below a status page, HTML only, with the page's access rule (404 unknown or not public, the password
 * form without the session of a protected page) and caching: an incident's permalink, and the history by month.
 */
export function incidentPageHandlers(opts: PageRouteOptions) {
  const { prisma } = opts.deps;

  /** GET <page>/incidents/:incidentId: one public incident of this page; any other id is the same 404. */
  const incident: RequestHandler = async (req, res) => {
    const ctx = await openPage(req, res, opts, 'form');
    if (!ctx) return;
    const found = await loadPublicIncident(prisma, ctx.page, String(req.params.incidentId));
    if (!found) {
      await sendNotFound(res, false, {
        title: 'Incident not found',
        message: 'This status page has no incident at this address.',
      });
      return;
    }
    const body = renderIncidentPage({
      page: mastheadOf(ctx),
      incident: found,
      now: ctx.now.toISOString(),
      assets: await publicAssets(),
    });
    await sendRendered(req, res.type('html'), renderedAnswer(body, 'once'));
  };

  /**
   * GET <page>/history[?month=YYYY-MM]: the current month by default; a month outside the last HISTORY_DAYS, or not
   * written YYYY-MM, is 400 (docs/decisions.md, "Status page permalinks and history").
   */
  const history: RequestHandler = async (req, res) => {
    const ctx = await openPage(req, res, opts, 'form');
    if (!ctx) return;
    const month = parseHistoryMonth(req.query.month, ctx.now);
    const { first, last } = historyBounds(ctx.now);
    const assets = await publicAssets();
    if (month === null) {
      res.setHeader('Cache-Control', 'no-store');
      res
        .status(400)
        .type('html')
        .send(
          renderMessage(
            'No history for that month',
            `The history covers ${monthName(first)} to ${monthName(last)}; a month is written as YYYY-MM (${last}).`,
            assets,
          ),
        );
      return;
    }
    const data = await loadPublicHistory(prisma, ctx.page, month, ctx.now);
    const prev = addMonths(month, -1);
    const next = addMonths(month, 1);
    const body = renderHistoryPage({
      page: mastheadOf(ctx),
      history: data,
      prev: prev >= first ? prev : null,
      next: next <= last ? next : null,
      now: ctx.now.toISOString(),
      assets,
    });
    await sendRendered(req, res.type('html'), renderedAnswer(body, 'once'));
  };

  return { incident, history };
}
