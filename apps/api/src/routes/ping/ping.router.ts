import type { Request, RequestHandler, Response } from 'express';
import type { CheckScheduler, Logger, PrismaClient } from '@statusvane/shared';
import { ROUTE_LABEL } from '../../middleware/request-log.js';
import { receivePing, type Ping } from '../../services/heartbeats/receive-ping.js';
import { decodeSegment } from '../path-segment.js';
import { answerText } from '../../middleware/answer-text.js';

const SECRET = /^[A-Za-z0-9_-]{16,64}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Where app.ts mounts the receiver: `<PUBLIC_BASE_URL>/ping/...`. */
export const PING_PREFIX = '/ping';
/** Bytes of a POST body kept as the run's log; the rest is read and dropped. */
export const PING_BODY_LIMIT = 10_000;

/** `/ping/<secret>/<kind>`: start, fail, or an exit code 0..255 (0 a success). Anything else: null (404). */
function kindOf(segment: string | undefined): Pick<Ping, 'kind' | 'exitCode'> | null {
  if (segment === undefined) return { kind: 'success', exitCode: null };
  if (segment === 'start' || segment === 'fail') return { kind: segment, exitCode: null };
  if (!/^[0-9]{1,3}$/.test(segment)) return null;
  const exitCode = Number(segment);
  if (exitCode > 255) return null;
  return { kind: exitCode === 0 ? 'success' : 'fail', exitCode };
}

/**
 * The first PING_BODY_LIMIT bytes of the request's body, read as it streams: the rest is consumed and dropped, so a
 * body of any size costs at most the limit in memory and is never an error. Decoded as UTF-8 (invalid bytes and NUL,
 * which PostgreSQL text refuses, become U+FFFD); null when empty.
 */
function readLog(req: Request): Promise<string | null> {
  if (req.method !== 'POST') return Promise.resolve(null);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    req.on('data', (chunk: Buffer) => {
      if (kept >= PING_BODY_LIMIT) return;
      const part = chunk.subarray(0, PING_BODY_LIMIT - kept);
      chunks.push(part);
      kept += part.length;
    });
    // A small body (the usual run log) arrives in one chunk: decoded as it is, without a copy.
    const done = () => {
      if (!kept) return resolve(null);
      const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
      resolve(bytes.toString('utf8').replace(/\0/g, '\uFFFD'));
    };
    req.on('end', done);
    // A client that goes away mid-body: its ping counts with what arrived.
    req.on('error', done);
    req.on('aborted', done);
  });
}

/** `/<secret>` or `/<secret>/<kind>` under PING_PREFIX, a trailing slash allowed: what Express would match. */
const PING_PATH = /^\/([^/]+)(?:\/([^/]+))?\/?$/;
/** The methods the receiver takes (HEAD as itself), in the order an OPTIONS answer lists them. */
const METHODS = ['GET', 'HEAD', 'POST'];
const ALLOW = METHODS.join(', ');

/** What Express's router answers to OPTIONS on a path whose routes take other methods. */
function answerOptions(res: Response): void {
  res.setHeader('Allow', ALLOW);
  res.setHeader('Content-Length', Buffer.byteLength(ALLOW));
  res.setHeader('Content-Type', 'text/plain');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.end(ALLOW);
}

/** What Express's `type('text/plain')` sets. */
const OK_TYPE = 'text/plain; charset=utf-8';

/**
 * The heartbeat receiver: `<PUBLIC_BASE_URL>/ping/<secret>[/start|/fail|/<exitCode>][?rid=<uuid>]`, GET, HEAD or
 * POST, no token: the unguessable secret is the credential. The pings of one event-loop turn are written together
 * (receive-ping.ts), each stored in the monitor's log with its POST body's first 10,000 bytes; the answer is two
 * bytes. The worker turns the monitor's ping times and run in progress into check results.
 *
 * app.ts mounts it at PING_PREFIX. It is one handler, not a Router of two routes: the busiest public endpoint then
 * costs one layer, and matches, decodes, answers OPTIONS and labels its request lines (`/ping/:secret`,
 * `/ping/:secret/:kind`) exactly as those routes did (test/hot-paths.test.ts, test/logging.test.ts).
 */
export function pingReceiver({
  prisma,
  scheduler,
  logger,
}: {
  prisma: PrismaClient;
  scheduler: CheckScheduler;
  logger: Logger;
}): RequestHandler {
  const receive = async (req: Request, res: Response, secret: string, kindSegment: string | undefined) => {
    res.setHeader('Cache-Control', 'no-store');
    const kind = kindOf(kindSegment);
    if (!SECRET.test(secret) || !kind) {
      res.status(404).type('text/plain').send('unknown ping URL\n');
      return;
    }
    const rid = req.query.rid;
    if (rid !== undefined && (typeof rid !== 'string' || !UUID.test(rid))) {
      res.status(400).type('text/plain').send('rid must be a UUID\n');
      return;
    }
    const body = await readLog(req);
    const monitor = await receivePing(
      { prisma },
      {
        input: {
          secret,
          // Named rather than spread: an object spread in a literal costs microseconds on Node 20, per ping.
          kind: kind.kind,
          exitCode: kind.exitCode,
          rid: rid?.toLowerCase() ?? null,
          body,
          remoteAddress: req.ip ?? null,
          userAgent: req.get('user-agent')?.slice(0, 200) ?? null,
        },
      },
    );
    if (!monitor) {
      res.status(404).type('text/plain').send('unknown ping URL\n');
      return;
    }
    // Judged at once rather than at the monitor's next deadline: an explicit failure, a run too long or too short, a
    // start (its run_timeout deadline may come before the armed one), and a success while the monitor is not
    // steadily up (pending, down, or short of resolveThreshold passes), so a recovery resolves promptly. A steady
    // monitor's success pings cost no Redis work: its deadline job finds them (docs/adr/0014). The evaluations of one
    // event-loop turn are queued together. If Redis is away the ping is still recorded and the next evaluation
    // reports it. A paused monitor's pings are recorded and judged nothing.
    const recovering = monitor.status !== 'up' || monitor.consecutivePasses < monitor.resolveThreshold;
    const urgent = kind.kind !== 'success' || monitor.tooLong || monitor.tooShort;
    if (monitor.enabled && (urgent || recovering)) {
      await scheduler
        .evaluateHeartbeatSoon(monitor.id, urgent ? {} : { notAgainWithinMs: 1000 })
        .catch((err: Error) => logger.warn('could not queue an evaluation for a ping', { error: err.message }));
    }
    answerText(req, res, 200, OK_TYPE, 'OK');
  };
  return (req, res, next) => {
    // Case-insensitive like Express's routes: the prefix was matched by the mount, the rest has no letters to fold.
    const match = PING_PATH.exec(req.path);
    if (!match) return next();
    const secret = decodeSegment(match[1]!);
    const kind = match[2] === undefined ? undefined : decodeSegment(match[2]);
    if (!METHODS.includes(req.method)) {
      if (req.method === 'OPTIONS') return answerOptions(res);
      return next();
    }
    // The template, as Express would have labelled the route (its mount as the request spelled it).
    res.locals[ROUTE_LABEL] = kind === undefined ? `${req.baseUrl}/:secret` : `${req.baseUrl}/:secret/:kind`;
    receive(req, res, secret, kind).catch(next);
  };
}
