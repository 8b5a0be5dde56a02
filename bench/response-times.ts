// Measures GET /monitors/{id}/response-times?period=month over a month of one-minute results for one monitor
// (43,200 rows) on the real database: `npx tsx bench/response-times.ts` (DATABASE_URL, or the local services).
import { performance } from 'node:perf_hooks';
import { createPrisma, rebuildRollups } from '@statusvane/shared';
import { createToken, createWorkspace } from '../apps/api/src/services/admin/admin-commands.js';
import { authenticate } from '../apps/api/src/services/auth/authenticate.js';
import { getResponseTimes } from '../apps/api/src/services/monitors/response-times.js';

const url = process.env.DATABASE_URL ?? 'postgresql://statusvane:statusvane@127.0.0.1:54329/statusvane';
const prisma = createPrisma(url, { max: 2 });
const slug = `bench-rt-${Date.now()}`;
try {
  const ws = await createWorkspace(prisma, { slug, name: 'bench', plan: 'solo' });
  const token = await createToken(prisma, { kind: 'org', workspace: ws.id, role: 'viewer' });
  const ctx = await authenticate(prisma, { authorization: `Bearer ${token.token}`, workspaceHeader: undefined });
  const component = await prisma.component.create({ data: { workspaceId: ws.id, name: 'bench' } });
  const monitor = await prisma.monitor.create({ data: { workspaceId: ws.id, componentId: component.id, name: 'bench', target: 'https://93.184.215.14/' } });

  const now = Date.now();
  const minutes = 30 * 24 * 60;
  const started = performance.now();
  for (let i = 0; i < minutes; i += 5000) {
    const rows = Array.from({ length: Math.min(5000, minutes - i) }, (_, j) => {
      const at = new Date(now - (i + j) * 60_000);
      return {
        monitorId: monitor.id,
        region: 'local',
        slot: at,
        checkedAt: at,
        outcome: (i + j) % 97 === 0 ? ('down' as const) : ('up' as const),
        responseMs: 50 + ((i + j) % 200),
        dnsMs: 3,
        connectMs: 5,
        tlsMs: 12,
        waitingMs: 30,
      };
    });
    await prisma.checkResult.createMany({ data: rows });
  }
  await rebuildRollups(prisma, monitor.id);
  await prisma.$executeRawUnsafe('ANALYZE check_results');
  await prisma.$executeRawUnsafe('ANALYZE check_rollups_hourly');
  console.log(`inserted ${minutes} results in ${Math.round(performance.now() - started)} ms`);

  for (const period of ['hour', 'day', 'week', 'month'] as const) {
    await getResponseTimes(prisma, { ctx, id: monitor.id, query: { period } }); // warm-up
    const times: number[] = [];
    for (let i = 0; i < 50; i++) {
      const t = performance.now();
      const r = await getResponseTimes(prisma, { ctx, id: monitor.id, query: { period } });
      times.push(performance.now() - t);
      if (r.buckets.reduce((a, b) => a + b.total, 0) === 0) throw new Error('expected results in the window');
    }
    times.sort((a, b) => a - b);
    const pct = (p: number) => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))]!.toFixed(1);
    console.log(`${period.padEnd(5)} query, one monitor with ${minutes} one-minute results (50 runs): p50 ${pct(50)} ms, p95 ${pct(95)} ms, max ${times.at(-1)!.toFixed(1)} ms`);
  }
} finally {
  await prisma.workspace.deleteMany({ where: { slug } });
  await prisma.$disconnect();
}
