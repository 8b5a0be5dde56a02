import { AppError, decodeCursor, type EventPosition } from '@statusvane/shared';
import { listEvents } from '../../services/events/list-events.js';
import { getMonitor } from '../../services/monitors/get-monitor.js';
import type { MonitorRecord } from '../../services/monitors/monitor-record.js';
import type { ServiceContext } from '../../services/context.js';
import type { PageStream, WorkspaceRequest } from '../define-page.js';

/** How often the stream reads the event log; how often it checks the session is still good; how long it lasts. */
export const LIVE_TIMING = { pollMs: 1000, recheckMs: 5000, maxMs: 5 * 60_000, keepAliveMs: 20_000 };

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        resolve();
      },
      { once: true },
    );
  });

/** One status change as the page's script applies it (client/monitors-live.ts). */
interface StatusChange {
  id: string;
  name: string;
  status: MonitorRecord['status'];
  lastCheckedAt: string | null;
}

/**
 * The monitors pages' live status, as server-sent events: the workspace's `monitor.status_changed` events read from
 * the event log (GET /events' verb, as the member, from `after`: the log's end when the page was drawn), each sent as
 * the status the monitor's record shows now (so `maintenance` and `paused` stay what they are). One `status` event
 * per batch, with the cursor as its id. The session and membership are checked again every few seconds: once they
 * end, an `end` event closes the stream. A stream lasts a few minutes; the script resumes from its last cursor.
 */
export function liveStatusStream(req: WorkspaceRequest, after: EventPosition): PageStream {
  return {
    contentType: 'text/event-stream',
    run: async (write, signal) => {
      let cursor = after;
      let ctx: ServiceContext = req.ctx;
      const started = Date.now();
      let checked = started;
      let wrote = started;
      write('retry: 2000\n\n');
      while (!signal.aborted && Date.now() - started < LIVE_TIMING.maxMs) {
        if (Date.now() - checked >= LIVE_TIMING.recheckMs) {
          const fresh = await req.recheck();
          checked = Date.now();
          if (!fresh) {
            write('event: end\ndata: signed out\n\n');
            return;
          }
          ctx = fresh;
        }
        const now = new Date();
        const page = await listEvents(req.deps, {
          ctx: { ...ctx, now },
          input: { after: cursor, types: ['monitor.status_changed'], limit: 200 },
        });
        const ids = [...new Set(page.data.flatMap((e) => ('monitor' in e.data ? [e.data.monitor.id] : [])))];
        if (ids.length) {
          const records = await Promise.all(
            ids.map((id) =>
              getMonitor(req.deps, { ctx: { ...ctx, now }, input: { id } }).catch((err: unknown) => {
                if (err instanceof AppError && err.code === 'not_found') return null;
                throw err;
              }),
            ),
          );
          const changes: StatusChange[] = records.flatMap((m) =>
            m ? [{ id: m.id, name: m.name, status: m.status, lastCheckedAt: m.lastCheckedAt }] : [],
          );
          if (changes.length) {
            write(`id: ${page.nextCursor}\nevent: status\ndata: ${JSON.stringify(changes)}\n\n`);
            wrote = Date.now();
          }
        }
        cursor = decodeCursor(page.nextCursor) ?? cursor;
        if (Date.now() - wrote >= LIVE_TIMING.keepAliveMs) {
          // A comment: keeps proxies from closing an idle connection.
          write(': still here\n\n');
          wrote = Date.now();
        }
        await sleep(LIVE_TIMING.pollMs, signal);
      }
    },
  };
}
