/**
 * A worker killed with SIGKILL while it delivers 1,000 events to a webhook: a real worker process (as an operator
 * runs it) dispatches the event log to a local receiver and is killed once part of it has arrived, with deliveries
 * in flight; a restarted worker finishes. Every event arrives at least once, none is lost, and a delivery sent twice
 * carries the same event (same body, same event id, same delivery id), validly signed each time.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { recordEvents, verifyWebhookSignature } from '@statusvane/shared';
import { bearer, makeHarness, makeWorkspace, type Harness } from '../support/harness.js';
import {
  createScratchDatabase,
  deleteKeys,
  killAll,
  startWorkerProcess,
  until,
  type ScratchDatabase,
} from './support/processes.js';

const EVENTS = 1000;
const JOB_LOCK_MS = 2500;

interface Received {
  delivery: string;
  eventId: string;
  body: string;
  signature: string;
}

let db: ScratchDatabase;
let h: Harness;
let server: http.Server;
let base: string;
const received: Received[] = [];

beforeAll(async () => {
  db = await createScratchDatabase('whcrash');
  h = makeHarness({ DATABASE_URL: db.url, ALLOWED_TARGET_CIDRS: '127.0.0.1/32' });
  // A receiver that takes 5 to 40 ms per delivery, so that deliveries are in flight when the worker dies.
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      setTimeout(
        () => {
          received.push({
            delivery: String(req.headers['statusvane-delivery']),
            eventId: (JSON.parse(body) as { id: string }).id,
            body,
            signature: String(req.headers['statusvane-signature']),
          });
          res.writeHead(200).end();
        },
        5 + Math.floor(Math.random() * 35),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);

afterAll(async () => {
  await killAll();
  await new Promise<void>((r) => server?.close(() => r()));
  await h?.close();
  await deleteKeys(process.env.REDIS_URL!, [`${h.queuePrefix}:*`]).catch(() => undefined);
  await db?.drop();
}, 60_000);

describe('a worker killed with SIGKILL while delivering events to a webhook', () => {
  it('delivers every one of 1,000 events at least once; a duplicate is the same event', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const hook = await request(h.app)
      .post('/api/v1/webhooks')
      .set(bearer(tokens.admin))
      .send({ url: `${base}/hook`, types: ['monitor.updated'] });
    expect(hook.status).toBe(201);
    const secret = hook.body.data.secret as string;

    // 1,000 events, committed in 100 transactions of 10.
    for (let t = 0; t < EVENTS / 10; t++) {
      await h.prisma.$transaction(async (tx) => {
        const events = Array.from({ length: 10 }, (_, i) => t * 10 + i).map((n) => ({
          workspaceId: ws.id,
          type: 'monitor.updated' as const,
          subject: `monitors/${n}`,
          data: { n },
        }));
        await recordEvents(tx, events);
      });
    }
    const logged = await h.prisma.event.findMany({ where: { workspaceId: ws.id }, select: { id: true } });
    expect(logged).toHaveLength(EVENTS);

    const env = {
      DATABASE_URL: db.url,
      REDIS_URL: h.config.redis.url!,
      QUEUE_PREFIX: h.queuePrefix,
      ALLOWED_TARGET_CIDRS: '127.0.0.1/32',
      JOB_LOCK_MS: String(JOB_LOCK_MS),
    };
    const a = await startWorkerProcess('worker-a', env);
    await until(() => received.length >= 150, 60_000, 'the first deliveries', 10);
    a.kill('SIGKILL');
    await a.exited;
    const atKill = received.length;
    const sentAtKill = await h.prisma.webhookDelivery.count({ where: { status: 'sent' } });
    // Killed part-way: not everything had arrived.
    expect(atKill).toBeLessThan(EVENTS);

    const a2 = await startWorkerProcess('worker-a-restarted', env);
    const distinct = () => new Set(received.map((r) => r.eventId)).size;
    await until(() => distinct() >= EVENTS, 120_000, 'every event to arrive').catch((err: Error) => {
      throw new Error(`${err.message}: ${distinct()} of ${EVENTS}\n${a2.output().slice(-2000)}`);
    });

    // None lost, nothing that is not an event of the log.
    expect(new Set(received.map((r) => r.eventId))).toEqual(new Set(logged.map((e) => e.id)));
    // Every duplicate is the same delivery of the same event: same delivery id, same event id, same body.
    const byDelivery = new Map<string, Set<string>>();
    for (const r of received) byDelivery.set(r.delivery, (byDelivery.get(r.delivery) ?? new Set()).add(r.body));
    expect([...byDelivery.values()].filter((bodies) => bodies.size !== 1)).toEqual([]);
    expect(byDelivery.size).toBe(EVENTS);
    const byEvent = new Map<string, Set<string>>();
    for (const r of received) byEvent.set(r.eventId, (byEvent.get(r.eventId) ?? new Set()).add(r.delivery));
    expect([...byEvent.values()].filter((d) => d.size !== 1)).toEqual([]);
    // Signed, each attempt.
    expect(received.filter((r) => !verifyWebhookSignature(secret, r.signature, r.body))).toEqual([]);

    // The history agrees: every delivery sent.
    await until(
      async () => (await h.prisma.webhookDelivery.count({ where: { status: 'sent' } })) === EVENTS,
      30_000,
      'every delivery recorded sent',
    );
    const duplicates = received.length - EVENTS;
    process.stderr.write(
      `webhook crash: ${atKill} received before the kill (${sentAtKill} recorded sent), ${duplicates} duplicate(s)\n`,
    );
    expect(a2.alive()).toBe(true);
    expect(a2.output()).not.toMatch(/unhandled|uncaught/i);
  }, 240_000);
});
