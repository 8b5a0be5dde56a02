import pg from 'pg';
import { WEBHOOK_EVENTS_CHANNEL, type Logger } from '@statusvane/shared';

/** The waits of the listener (tests shorten them). */
export interface ListenTiming {
  /** After a run that found events held above the log's fence, the next run (default 500 ms). */
  heldRetryMs?: number;
  /** While not listening (connecting, or the connection lost), a run this often: the former cadence (default 1 s). */
  pollMs?: number;
  /** The first wait before connecting again, doubling up to 30 s (default 1 s). */
  reconnectMs?: number;
  /** The least time from one run's start to the next's, however fast events come (default 200 ms). */
  minGapMs?: number;
}

export interface WebhookListener {
  /** True while the LISTEN connection is up. */
  readonly listening: boolean;
  /** Stops listening and polling; waits for the run in flight. */
  close(): Promise<void>;
}

/** The name the listener's connection shows in pg_stat_activity. */
export const WEBHOOK_LISTENER_NAME = 'statusvane-webhook-listener';
const RECONNECT_MAX_MS = 30_000;

/**
 * Event webhooks dispatched as their events commit (docs/decisions.md, "Event webhooks: dispatched on commit"): a
 * connection of its own LISTENs on WEBHOOK_EVENTS_CHANNEL, which an event of a workspace with a webhook notifies on
 * commit, and each notification runs `dispatch`. Runs never overlap in one process, and one starts at least `minGapMs`
 * after the last one started: notifications during a run, or within the gap after it, make one more run once the gap
 * has passed (so that a burst of events costs each worker a few runs a second, not one per event). A run that finds
 * events held above the log's fence (committed after a transaction still open) runs again `heldRetryMs` later, as the
 * fence moves without notifying. While the connection is down, `dispatch` runs every `pollMs`, and once it is back, at
 * once: what committed meanwhile is not missed. Several workers may all run it: a webhook is fanned out by one
 * dispatcher at a time (dispatch.ts).
 */
export function startWebhookListener(opts: {
  databaseUrl: string;
  dispatch: () => Promise<{ held: boolean }>;
  logger: Logger;
  timing?: ListenTiming;
}): WebhookListener {
  const { logger } = opts;
  const heldRetryMs = opts.timing?.heldRetryMs ?? 500;
  const pollMs = opts.timing?.pollMs ?? 1000;
  const reconnectMs = opts.timing?.reconnectMs ?? 1000;
  const minGapMs = opts.timing?.minGapMs ?? 200;
  let closed = false;
  let listening = false;
  let client: pg.Client | null = null;
  let reconnectWait = reconnectMs;
  let reconnectTimer: NodeJS.Timeout | null = null;
  let pollTimer: NodeJS.Timeout | null = null;
  let retryTimer: NodeJS.Timeout | null = null;
  /** When the pending retry fires. */
  let retryAt = Infinity;
  /** A run waiting for the gap since the last one's start to pass. */
  let gapTimer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let again = false;
  let lastBegan = -Infinity;

  /** One run `ms` from now, unless a retry already comes sooner (a held result's 500 ms beats a failure's 1 s). */
  const retryIn = (ms: number) => {
    if (Date.now() + ms >= retryAt) return;
    if (retryTimer) clearTimeout(retryTimer);
    retryAt = Date.now() + ms;
    retryTimer = setTimeout(() => {
      retryTimer = null;
      retryAt = Infinity;
      kick();
    }, ms);
  };

  function kick(): void {
    if (closed) return;
    if (running) {
      again = true;
      return;
    }
    // A run already waits for the gap: it starts after this notification, so it covers it.
    if (gapTimer) return;
    const wait = lastBegan + minGapMs - Date.now();
    if (wait > 0) {
      gapTimer = setTimeout(() => {
        gapTimer = null;
        kick();
      }, wait);
      return;
    }
    again = false;
    lastBegan = Date.now();
    running = (async () => {
      try {
        if ((await opts.dispatch()).held) retryIn(heldRetryMs);
      } catch (err) {
        logger.warn('webhook dispatch failed', { error: (err as Error).message });
        retryIn(pollMs);
      }
      running = null;
      // Notifications during the run: one more, once the gap since this one's start has passed.
      if (again) kick();
    })();
  }

  const startPolling = () => {
    pollTimer ??= setInterval(kick, pollMs);
  };

  function down(from: pg.Client, err?: Error): void {
    if (from !== client) return;
    client = null;
    from.end().catch(() => undefined);
    if (closed) return;
    if (listening) logger.warn('webhook listener disconnected: polling until it is back', { error: err?.message });
    listening = false;
    startPolling();
    reconnectTimer = setTimeout(connect, reconnectWait);
    reconnectWait = Math.min(reconnectWait * 2, RECONNECT_MAX_MS);
  }

  function connect(): void {
    reconnectTimer = null;
    if (closed) return;
    const c = new pg.Client({
      connectionString: opts.databaseUrl,
      application_name: WEBHOOK_LISTENER_NAME,
      keepAlive: true,
      connectionTimeoutMillis: 3000,
    });
    client = c;
    c.on('notification', kick);
    c.on('error', (err) => down(c, err));
    c.on('end', () => down(c));
    c.connect()
      .then(() => c.query(`LISTEN ${WEBHOOK_EVENTS_CHANNEL}`))
      .then(() => {
        if (c !== client) return;
        listening = true;
        reconnectWait = reconnectMs;
        if (pollTimer) clearInterval(pollTimer);
        pollTimer = null;
        kick(); // what committed before LISTEN took hold
      })
      .catch((err: Error) => down(c, err));
  }

  startPolling();
  connect();
  return {
    get listening() {
      return listening;
    },
    async close() {
      closed = true;
      for (const t of [reconnectTimer, retryTimer, gapTimer]) if (t) clearTimeout(t);
      if (pollTimer) clearInterval(pollTimer);
      const c = client;
      client = null;
      listening = false;
      await running;
      await c?.end().catch(() => undefined);
    },
  };
}
