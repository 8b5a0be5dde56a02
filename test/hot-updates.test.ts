// Issue 33: the rows every stored result updates (its region's state, its hour's and its day's rollups) are updated
// HOT: the new version stays on the row's page (no new index entries). The rows a group transaction updates were
// inserted together, so they share pages, and a page needs room for all their new versions at once (fillfactor,
// migration 20261129200000_hot_state_updates).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { storeCheckResults, type StoreInput } from '../apps/worker/src/checks/store-result.js';
import { makeHarness, makeWorkspace, type Harness } from './support/harness.js';

let h: Harness;
beforeAll(() => {
  h = makeHarness();
});
afterAll(async () => {
  await h.close();
});

/** `count` http monitors of a new workspace, as the store reads them. */
async function monitors(count: number): Promise<Array<StoreInput['monitor']>> {
  const { ws } = await makeWorkspace(h.prisma);
  const rows = Array.from({ length: count }, (_, i) => ({
    id: randomUUID(),
    componentId: randomUUID(),
    name: `M ${i}`,
  }));
  await h.prisma.component.createMany({
    data: rows.map((r) => ({ id: r.componentId, workspaceId: ws.id, name: r.name })),
  });
  await h.prisma.monitor.createMany({
    data: rows.map((r) => ({
      ...r,
      workspaceId: ws.id,
      type: 'http' as const,
      target: 'http://127.0.0.1:9/',
      intervalSeconds: 60,
      timeoutMs: 5000,
      openThreshold: 2,
      resolveThreshold: 2,
      enabled: true,
    })),
  });
  return rows.map((r) => ({
    id: r.id,
    workspaceId: ws.id,
    name: r.name,
    type: 'http',
    metadata: {},
    openThreshold: 2,
    resolveThreshold: 2,
    intervalSeconds: 60,
    confirmAfterSeconds: 0,
    regions: ['local'],
    quorum: null,
  }));
}

/** The heap page of each row of `table` of these monitors, by monitor id. */
async function pages(table: string, ids: string[]): Promise<Map<string, string>> {
  const rows = await h.prisma.$queryRawUnsafe<Array<{ id: string; page: string }>>(
    `SELECT "monitorId"::text AS id, (ctid::text::point)[0]::text AS page FROM ${table} WHERE "monitorId" = ANY($1::uuid[])`,
    ids,
  );
  return new Map(rows.map((r) => [r.id, r.page]));
}

describe('updates of a stored result', () => {
  it('keep the region states and rollups of a whole group on their pages (HOT)', async () => {
    // A full group (MAX_BATCH): its rows fill pages, so without room kept free their new versions had to move.
    const ms = await monitors(200);
    const ids = ms.map((m) => m.id);
    const at = (i: number) => new Date(Date.UTC(2026, 0, 5, 10, 0, 0) + i * 60_000);
    const group = (i: number): StoreInput[] =>
      ms.map((monitor) => ({
        monitor,
        region: 'local',
        slot: at(i),
        checkedAt: new Date(at(i).getTime() + 50),
        result: {
          outcome: 'up',
          responseMs: 12,
          statusCode: 200,
          reason: null,
          phases: { dnsMs: null, connectMs: 1, tlsMs: null, waitingMs: 10 },
        },
      }));
    await storeCheckResults(h.prisma, group(0));
    const tables = ['monitor_region_states', 'check_rollups_hourly', 'check_rollups_daily'];
    const before = await Promise.all(tables.map((t) => pages(t, ids)));
    // The same monitors' next results, in one transaction (the same hour and day): every row is updated once.
    await storeCheckResults(h.prisma, group(1));
    const after = await Promise.all(tables.map((t) => pages(t, ids)));
    const moved = tables.map((t, i) => [t, ids.filter((id) => before[i]!.get(id) !== after[i]!.get(id)).length]);
    expect(moved).toEqual(tables.map((t) => [t, 0]));
    const [sum] = await h.prisma.$queryRaw<Array<{ total: number }>>`
      SELECT sum(total)::int AS total FROM check_rollups_hourly WHERE "monitorId" = ANY(${ids}::uuid[])`;
    expect(sum?.total).toBe(400);
  });

  it('store every value of a result as given (a lone surrogate in its reason as U+FFFD, as a text parameter did)', async () => {
    const [monitor] = await monitors(1);
    const slot = new Date(Date.UTC(2026, 0, 6, 10, 0, 0));
    const certificate = {
      subject: 'CN=x',
      issuer: 'CN=y',
      validFrom: '2026-01-01T00:00:00.000Z',
      validTo: '2026-03-01T00:00:00.000Z',
      daysRemaining: 54,
      fingerprint256: 'AA:BB',
    };
    await storeCheckResults(h.prisma, [
      {
        monitor: monitor!,
        region: 'local',
        slot,
        checkedAt: new Date(slot.getTime() + 7),
        result: {
          outcome: 'down',
          responseMs: null,
          statusCode: 503,
          reason: 'json_assertion_failed: "\ud800" \u00e9 it\'s',
          phases: { dnsMs: 3, connectMs: null, tlsMs: 4, waitingMs: 5 },
          certificate,
          address: '::1',
          traceId: '0af7651916cd43dd8448eb211c80319c',
        },
      },
    ]);
    const row = await h.prisma.checkResult.findFirstOrThrow({ where: { monitorId: monitor!.id } });
    expect(row).toMatchObject({
      slot,
      checkedAt: new Date(slot.getTime() + 7),
      outcome: 'down',
      responseMs: null,
      statusCode: 503,
      reason: 'json_assertion_failed: "\ufffd" \u00e9 it\'s',
      dnsMs: 3,
      connectMs: null,
      tlsMs: 4,
      waitingMs: 5,
      certificate,
      dnsAnswers: null,
      steps: null,
      traceId: '0af7651916cd43dd8448eb211c80319c',
    });
    const [state] = await h.prisma.$queryRaw<Array<{ lastOutcome: string; address: string }>>`
      SELECT s."lastOutcome"::text AS "lastOutcome", host(c.address) AS address FROM monitor_region_states s
      JOIN check_results c ON c."monitorId" = s."monitorId" WHERE s."monitorId" = ${monitor!.id}::uuid`;
    expect(state).toEqual({ lastOutcome: 'down', address: '::1' });
    const m = await h.prisma.monitor.findUniqueOrThrow({ where: { id: monitor!.id } });
    expect(m).toMatchObject({ status: 'down', lastCheckedAt: new Date(slot.getTime() + 7), certificate });
  });
});

describe('autovacuum of the rows every stored result rewrites', () => {
  it('waits for ten times the monitors and region states in changes, not a tenth (analyze) and a fifth (vacuum)', async () => {
    // Each check rewrites its monitor's row and its region's state, every row of both each interval: with PostgreSQL's
    // defaults autovacuum analyzed and vacuumed them at every pass, once a minute (migration
    // 20261202180000_churn_tables_autovacuum). The rollups, which grow and are pruned, keep the defaults.
    const tables = ['monitors', 'monitor_region_states', 'check_rollups_hourly'];
    const rows = await h.prisma.$queryRaw<Array<{ table: string; options: string[] | null }>>`
      SELECT relname::text AS table, reloptions AS options FROM pg_class
      WHERE relname = ANY(${tables}::text[]) AND relkind = 'r' AND relnamespace = 'public'::regnamespace
      ORDER BY array_position(${tables}::text[], relname::text)`;
    const churn = ['autovacuum_analyze_scale_factor=10', 'autovacuum_vacuum_scale_factor=10'];
    expect(rows).toEqual([
      { table: 'monitors', options: churn },
      { table: 'monitor_region_states', options: ['fillfactor=50', ...churn] },
      { table: 'check_rollups_hourly', options: ['fillfactor=50'] },
    ]);
  });
});
