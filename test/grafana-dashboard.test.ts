/**
 * deploy/grafana/statusvane.json against the metrics the API and a worker really expose: every metric its queries
 * name is in a /metrics answer, every statusvane_ metric exposed has a panel, and it imports as it is (the data
 * source an input, `${DS_PROMETHEUS}`, everywhere one is named).
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { startMetricsServer, type MetricsServer, type Registry } from '@statusvane/shared';
import { createApp } from '../apps/api/src/app.js';
import { createApiMetrics } from '../apps/api/src/metrics/api-metrics.js';
import { bearer, makeHarness, makeWorkspace, type Harness } from './support/harness.js';
import { startWorker } from './support/worker-harness.js';

type Panel = {
  type: string;
  title: string;
  datasource?: { type: string; uid: string };
  targets?: Array<{ expr: string; datasource?: { uid: string } }>;
};
type Dashboard = {
  __inputs: Array<{ name: string; type: string; pluginId: string }>;
  panels: Panel[];
  templating: { list: Array<{ datasource: { uid: string }; definition: string }> };
  uid: string;
  id: null;
};

let h: Harness;
let worker: ReturnType<typeof startWorker>;
let dashboard: Dashboard;
beforeAll(async () => {
  h = makeHarness();
  worker = startWorker(h);
  dashboard = JSON.parse(
    await readFile(new URL('../deploy/grafana/statusvane.json', import.meta.url), 'utf8'),
  ) as Dashboard;
});
afterAll(async () => {
  await worker.close();
  await h.close();
});

/** The metric families of a real /metrics answer (its `# TYPE` lines: present before any sample is). */
async function exposed(registry: Registry): Promise<Map<string, string>> {
  const server: MetricsServer = await startMetricsServer({ registry, port: 0, host: '127.0.0.1', token: null });
  try {
    const text = await (await fetch(`http://127.0.0.1:${server.port()}/metrics`)).text();
    return new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
  } finally {
    await server.close();
  }
}

/** The metric names a PromQL expression reads (functions, labels and keywords are not metric names). */
const METRIC = /\b((?:statusvane|process|nodejs)_[a-z0-9_]+)\b/g;

describe('the Grafana dashboard', () => {
  it('names only metrics that /metrics exposes, and shows every statusvane_ metric', async () => {
    const api = createApiMetrics(h.deps);
    // A request, so the API has answered something (as a scraped API has).
    const { tokens } = await makeWorkspace(h.prisma);
    await request(createApp({ ...h.deps, metrics: api }))
      .get('/api/v1/monitors')
      .set(bearer(tokens.viewer));
    const families = new Map([...(await exposed(api.registry)), ...(await exposed(worker.runtime.metrics.registry))]);
    expect(families.get('statusvane_checks_total')).toBe('counter');

    const exprs = [
      ...dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr)),
      ...dashboard.templating.list.map((v) => v.definition),
    ];
    expect(exprs.length).toBeGreaterThan(20);
    const named = new Set(exprs.flatMap((e) => [...e.matchAll(METRIC)].map((m) => m[1]!)));
    // A histogram's series are its family's name plus _bucket, _sum or _count.
    const family = (name: string) => {
      const base = name.replace(/_(bucket|sum|count)$/, '');
      return families.get(base) === 'histogram' ? base : name;
    };
    const missing = [...named].filter((n) => !families.has(family(n)));
    expect(missing).toEqual([]);
    const shown = new Set([...named].map(family));
    const unshown = [...families.keys()].filter((n) => n.startsWith('statusvane_') && !shown.has(n));
    expect(unshown).toEqual([]);
  });

  it('imports as it is: the data source is the DS_PROMETHEUS input wherever one is named', () => {
    expect(dashboard.__inputs).toEqual([
      expect.objectContaining({ name: 'DS_PROMETHEUS', type: 'datasource', pluginId: 'prometheus' }),
    ]);
    expect(dashboard.id).toBeNull();
    expect(dashboard.uid).toBe('statusvane');
    const sources = [
      ...dashboard.panels
        .filter((p) => p.type !== 'row')
        .flatMap((p) => [p.datasource, ...(p.targets ?? []).map((t) => t.datasource)]),
      ...dashboard.templating.list.map((v) => v.datasource),
    ];
    expect(sources.length).toBeGreaterThan(0);
    for (const source of sources) expect(source?.uid).toBe('${DS_PROMETHEUS}');
    // Panels do not overlap: Grafana would move them on import.
    const cells = new Set<string>();
    for (const p of dashboard.panels as Array<Panel & { gridPos: { x: number; y: number; w: number; h: number } }>)
      for (let x = p.gridPos.x; x < p.gridPos.x + p.gridPos.w; x++)
        for (let y = p.gridPos.y; y < p.gridPos.y + p.gridPos.h; y++) {
          expect(cells.has(`${x},${y}`)).toBe(false);
          cells.add(`${x},${y}`);
        }
  });
});
