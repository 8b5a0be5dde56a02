/**
 * OpenTelemetry (spec section 11) against a local OTLP/HTTP receiver on 127.0.0.1: a span per check with the
 * monitor's id and the outcome, a span per api step, a span per API request named by its route template; http checks
 * send a W3C traceparent whose trace id the stored result keeps, and none with `sendTraceparent: false`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { startTracing, type Tracing } from '@statusvane/shared';
import { createApp } from '../apps/api/src/app.js';
import { bearer, makeHarness, makeWorkspace, type Harness } from './support/harness.js';
import {
  CLEAR_OF_SLOTS,
  checkOnce as checkOnceVia,
  firstResult,
  startWorker,
  waitFor,
} from './support/worker-harness.js';

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean };
interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  service: string;
  attributes: Record<string, string | number | boolean | undefined>;
}

/** An OTLP/HTTP traces receiver (JSON, as @opentelemetry/exporter-trace-otlp-http sends): every span received. */
async function startReceiver() {
  const spans: ReceivedSpan[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceSpans: Array<{
            resource: { attributes: Array<{ key: string; value: OtlpValue }> };
            scopeSpans: Array<{
              spans: Array<
                Omit<ReceivedSpan, 'attributes' | 'service'> & { attributes?: Array<{ key: string; value: OtlpValue }> }
              >;
            }>;
          }>;
        };
        for (const rs of body.resourceSpans) {
          const service = rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
          for (const ss of rs.scopeSpans)
            for (const s of ss.spans)
              spans.push({
                ...s,
                service,
                attributes: Object.fromEntries(
                  (s.attributes ?? []).map((a) => [
                    a.key,
                    a.value.stringValue ??
                      (a.value.intValue !== undefined ? Number(a.value.intValue) : a.value.boolValue),
                  ]),
                ),
              });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  return { ...(await listen(server)), spans };
}

/** A server listening on 127.0.0.1: its base URL and how to close it. */
async function listen(server: http.Server) {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** A check target that records the traceparent header of every request. */
/**
 * A target that keeps the traceparent header of each request, by path: each test's monitor has a path of its own, and
 * the monitors of earlier tests stay scheduled (a scheduled check of one may land during a later test).
 */
async function startTarget() {
  const byPath = new Map<string, Array<string | undefined>>();
  const seen = (path: string) => {
    let headers = byPath.get(path);
    if (!headers) byPath.set(path, (headers = []));
    return headers;
  };
  const server = http.createServer((req, res) => {
    seen(req.url ?? '').push(req.headers.traceparent as string | undefined);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  });
  return { ...(await listen(server)), seen };
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-0[01]$/;

let h: Harness;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let target: Awaited<ReturnType<typeof startTarget>>;
let workerTracing: Tracing;
let apiTracing: Tracing;
let w: ReturnType<typeof startWorker>;
let token: string;
beforeAll(async () => {
  receiver = await startReceiver();
  target = await startTarget();
  h = makeHarness({ ALLOWED_TARGET_CIDRS: '127.0.0.0/8' });
  const env = { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url };
  workerTracing = (await startTracing({ service: 'statusvane-worker', env }))!;
  apiTracing = (await startTracing({ service: 'statusvane-api', env }))!;
  w = startWorker(h, 'local', { tracing: workerTracing });
  token = (await makeWorkspace(h.prisma)).tokens.member;
});
afterAll(async () => {
  await w.close();
  await Promise.all([workerTracing.shutdown(), apiTracing.shutdown()]);
  await Promise.all([receiver.close(), target.close()]);
  await h.close();
});

const checkSpansOf = async (monitorId: string, count: number) => {
  await workerTracing.flush();
  return waitFor(
    async () => {
      const found = receiver.spans.filter(
        (s) => s.name === 'check' && s.attributes['statusvane.monitor.id'] === monitorId,
      );
      return found.length >= count ? found : null;
    },
    10_000,
    `${count} check spans`,
  );
};
const resultsOf = async (monitorId: string) =>
  (await request(h.app).get(`/api/v1/monitors/${monitorId}/results`).set(bearer(token))).body.data as Array<{
    traceId: string | null;
    status: string;
  }>;

describe('traces', () => {
  it('nothing is started without OTEL_EXPORTER_OTLP_ENDPOINT', async () => {
    expect(await startTracing({ service: 'x', env: {} })).toBeNull();
    expect(await startTracing({ service: 'x', env: { OTEL_EXPORTER_OTLP_ENDPOINT: ' ' } })).toBeNull();
  });

  it('one span per check with the monitor id and outcome; the target sees a traceparent whose trace id the result keeps', async () => {
    const created = await request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(token))
      .send({ name: 'traced', target: `${target.url}/health`, ...CLEAR_OF_SLOTS });
    expect(created.status).toBe(201);
    expect(created.body.data.sendTraceparent).toBe(true);
    const id = created.body.data.id as string;
    await firstResult(h, id, 10_000);
    const [span] = await checkSpansOf(id, 1);
    expect(span).toMatchObject({
      service: 'statusvane-worker',
      attributes: {
        'statusvane.monitor.id': id,
        'statusvane.monitor.type': 'http',
        'statusvane.check.outcome': 'up',
        'statusvane.region': 'local',
      },
    });
    const [result] = await resultsOf(id);
    const header = target.seen('/health').at(-1)!;
    const [, traceId, parentId] = TRACEPARENT.exec(header) ?? [];
    expect(traceId).toBeDefined();
    expect(result!.traceId).toBe(traceId);
    // The check's own span is the parent the target's trace joins.
    expect([span!.traceId, span!.spanId]).toEqual([traceId, parentId]);

    // One span per check: a second check is a second span, with its own trace.
    await checkOnceVia(h, w.completed, id);
    const spans = await checkSpansOf(id, 2);
    expect(spans).toHaveLength(2);
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(2);
  });

  it('sendTraceparent: false sends none and keeps no traceId', async () => {
    const created = await request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(token))
      .send({ name: 'untraced', target: `${target.url}/quiet`, sendTraceparent: false, ...CLEAR_OF_SLOTS });
    expect(created.body.data.sendTraceparent).toBe(false);
    const id = created.body.data.id as string;
    const before = target.seen('/quiet').length;
    await firstResult(h, id, 10_000);
    expect(target.seen('/quiet').slice(before)).toEqual([undefined]);
    expect((await resultsOf(id))[0]!.traceId).toBeNull();
    // Still a span per check: the header is what is turned off.
    await checkSpansOf(id, 1);
    // And back on by PATCH.
    const patched = await request(h.app)
      .patch(`/api/v1/monitors/${id}`)
      .set(bearer(token))
      .send({ sendTraceparent: true });
    expect(patched.body.data.sendTraceparent).toBe(true);
    await checkOnceVia(h, w.completed, id);
    expect(target.seen('/quiet').at(-1)).toMatch(TRACEPARENT);
  });

  it('an api check: a child span per step, in the check span', async () => {
    const created = await request(h.app)
      .post('/api/v1/monitors')
      .set(bearer(token))
      .send({
        type: 'api',
        name: 'steps',
        steps: [
          { name: 'first', method: 'GET', url: `${target.url}/one` },
          { name: 'second', method: 'GET', url: `${target.url}/two` },
        ],
      });
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    const [check] = await checkSpansOf(id, 1);
    await waitFor(
      async () => receiver.spans.filter((s) => s.name === 'api step' && s.parentSpanId === check!.spanId).length === 2,
      10_000,
      'two step spans',
    );
    const steps = receiver.spans.filter((s) => s.name === 'api step' && s.parentSpanId === check!.spanId);
    expect(
      steps.map((s) => [s.traceId, s.attributes['statusvane.step.name'], s.attributes['statusvane.step.outcome']]),
    ).toEqual([
      [check!.traceId, 'first', 'passed'],
      [check!.traceId, 'second', 'passed'],
    ]);
  });

  it('a span per API request, named by its route template, never by the URL', async () => {
    const app = createApp({ ...h.deps, tracing: apiTracing });
    const created = await request(app)
      .post('/api/v1/monitors')
      .set(bearer(token))
      .send({ type: 'heartbeat', name: 'beat' });
    const id = created.body.data.id as string;
    const ping = new URL(created.body.data.pingUrl as string).pathname;
    await request(app).get(`/api/v1/monitors/${id}`).set(bearer(token));
    await request(app).get(ping);
    await apiTracing.flush();
    const api = await waitFor(
      async () => {
        const found = receiver.spans.filter((s) => s.service === 'statusvane-api');
        return found.length >= 3 ? found : null;
      },
      10_000,
      'the API spans',
    );
    const names = api.map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(['POST /api/v1/monitors', 'GET /api/v1/monitors/:id']));
    const read = api.find((s) => s.name === 'GET /api/v1/monitors/:id')!;
    expect(read.attributes).toMatchObject({
      'http.request.method': 'GET',
      'http.route': '/api/v1/monitors/:id',
      'http.response.status_code': 200,
    });
    const secret = ping.split('/').pop()!;
    for (const s of api) {
      expect(s.name).not.toContain(id);
      expect(JSON.stringify(s)).not.toContain(secret);
    }
  });
});
