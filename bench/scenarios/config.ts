/**
 * Monitoring as code at scale (issue 19): a 1,000-monitor workspace document planned, applied, and applied again
 * through the API process, timed from the client. The second apply must report 0 changes.
 */
import type { PrismaClient } from '@statusvane/shared';
import { seedWorkspace } from '../lib/seed.js';

export interface ConfigBenchResult {
  monitors: number;
  documentKiB: number;
  planSeconds: number;
  applySeconds: number;
  secondApplySeconds: number;
  /** create + update + delete of the second apply (the goal: 0). */
  secondApplyChanges: number;
}

type Summary = { create: number; update: number; delete: number; noop: number };

/** A company-shaped document: mostly http checks, some tcp and heartbeats, one status page over all of them. */
export function benchDocument(count: number, targetUrl: string, slug: string) {
  const port = new URL(targetUrl).port;
  const monitors = Array.from({ length: count }, (_, i) => {
    const ref = `svc-${String(i).padStart(4, '0')}`;
    if (i % 10 === 8) return { ref, name: `Service ${i} port`, type: 'tcp', target: `127.0.0.1:${port}` };
    if (i % 10 === 9) return { ref, name: `Job ${i}`, type: 'heartbeat', intervalSeconds: 3600, graceSeconds: 300 };
    return {
      ref,
      name: `Service ${i}`,
      type: 'http',
      target: `${targetUrl}?service=${i}`,
      intervalSeconds: 300,
      ...(i % 3 === 0 ? { headers: { Authorization: `Bearer token-${i}` } } : {}),
      metadata: { team: `team-${i % 7}` },
    };
  });
  const sections = Array.from({ length: Math.ceil(count / 100) }, (_, s) => ({
    name: `Group ${s + 1}`,
    monitors: monitors.slice(s * 100, s * 100 + 100).map((m) => m.ref),
  }));
  return { version: 1, monitors, statusPages: [{ ref: 'public', name: 'Bench status', slug, sections }] };
}

export async function runConfigScenario(
  opts: { prisma: PrismaClient; apiUrl: string; targetUrl: string; monitors: number },
  log: (msg: string) => void,
): Promise<ConfigBenchResult> {
  const ws = await seedWorkspace(opts.prisma, 'bench-config');
  const doc = benchDocument(opts.monitors, opts.targetUrl, `bench-config-${Date.now()}`);
  const body = JSON.stringify(doc);
  const post = async (path: string, extra: Record<string, unknown> = {}) => {
    const started = performance.now();
    const res = await fetch(`${opts.apiUrl}/api/v1/config/${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${ws.token}`, 'Content-Type': 'application/json' },
      body: Object.keys(extra).length ? JSON.stringify({ ...doc, ...extra }) : body,
      signal: AbortSignal.timeout(120_000),
    });
    const seconds = (performance.now() - started) / 1000;
    const text = await res.text();
    if (!res.ok) throw new Error(`POST /config/${path} answered ${res.status}: ${text.slice(0, 500)}`);
    const data = (JSON.parse(text) as { data: { planId: string; summary: Summary } }).data;
    return { seconds, ...data };
  };
  try {
    const plan = await post('plan');
    log(`config: plan of ${opts.monitors} monitors ${plan.seconds.toFixed(2)} s (${plan.summary.create} to create)`);
    const apply = await post('apply', { planId: plan.planId });
    log(`config: apply ${apply.seconds.toFixed(2)} s`);
    const again = await post('apply');
    const pending = again.summary.create + again.summary.update + again.summary.delete;
    log(`config: second apply ${again.seconds.toFixed(2)} s, ${pending} change(s)`);
    const round = (n: number) => Math.round(n * 100) / 100;
    return {
      monitors: opts.monitors,
      documentKiB: Math.round(Buffer.byteLength(body) / 1024),
      planSeconds: round(plan.seconds),
      applySeconds: round(apply.seconds),
      secondApplySeconds: round(again.seconds),
      secondApplyChanges: pending,
    };
  } finally {
    // Its monitors are enabled and scheduled: gone before the worker starts (the caller clears Redis after).
    await opts.prisma.workspace.delete({ where: { id: ws.id } });
  }
}
