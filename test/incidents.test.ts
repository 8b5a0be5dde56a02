import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { deleteIncident } from '../apps/api/src/services/incidents/delete-incident.js';
import { authenticate } from '../apps/api/src/services/auth/authenticate.js';
import { storeCheckResultAlone } from '../apps/worker/src/checks/store-result.js';
import { makeMonitorInput } from './support/factories.js';
import { bearer, makeHarness, makeWorkspace, type Harness } from './support/harness.js';

let h: Harness;
beforeAll(() => {
  h = makeHarness();
});
afterAll(async () => {
  await h.close();
});

/** An incident row as the worker writes it: `openMonitorId` is the monitor's id while a monitor incident is unresolved. */
async function incident(workspaceId: string, monitorId: string | null, over: Record<string, unknown> = {}) {
  const unresolvedMonitorIncident =
    monitorId !== null && (over.status ?? 'open') !== 'resolved' && (over.source ?? 'monitor') === 'monitor';
  return h.prisma.incident.create({
    data: {
      workspaceId,
      monitorId,
      openMonitorId: unresolvedMonitorIncident ? monitorId : null,
      title: 'x is down',
      metadata: { team: 'web' },
      ...over,
    },
  });
}

describe('GET /incidents', () => {
  it('lists open, acknowledged and recently resolved incidents, newest first, paginated', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const day = 86_400_000;
    const now = Date.now();
    const open = await incident(ws.id, null, { startedAt: new Date(now - 1000) });
    const acked = await incident(ws.id, null, {
      status: 'acknowledged',
      acknowledgedAt: new Date(),
      startedAt: new Date(now - 2000),
    });
    const recent = await incident(ws.id, null, {
      status: 'resolved',
      resolvedAt: new Date(now - 6 * day),
      startedAt: new Date(now - 6.5 * day),
    });
    await incident(ws.id, null, {
      status: 'resolved',
      resolvedAt: new Date(now - 8 * day),
      startedAt: new Date(now - 9 * day),
    });
    const res = await request(h.app).get('/api/v1/incidents?perPage=2').set(bearer(tokens.viewer));
    expect(res.status).toBe(200);
    expect(res.body.pagination).toEqual({ page: 1, perPage: 2, total: 3, totalPages: 2 });
    expect(res.body.data.map((i: { id: string }) => i.id)).toEqual([open.id, acked.id]);
    expect(res.body.data[0]).toEqual({
      id: open.id,
      version: 1,
      title: 'x is down',
      status: 'open',
      impact: 'major',
      source: 'monitor',
      startedAt: open.startedAt.toISOString(),
      resolvedAt: null,
      acknowledgedAt: null,
      acknowledgedBy: null,
      monitorId: null,
      metadata: { team: 'web' },
      reason: null,
      evidence: [],
      suppressedBy: null,
    });
    const page2 = await request(h.app).get('/api/v1/incidents?perPage=2&page=2').set(bearer(tokens.viewer));
    expect(page2.body.data.map((i: { id: string }) => i.id)).toEqual([recent.id]);
    const other = await makeWorkspace(h.prisma);
    expect((await request(h.app).get('/api/v1/incidents').set(bearer(other.tokens.viewer))).body.pagination.total).toBe(
      0,
    );
  });
});

describe('DELETE /incidents/{id}', () => {
  it('deletes (204, no body) for owner and admin, resets the monitor flap state, and refuses others', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const m = (await request(h.app).post('/api/v1/monitors').set(bearer(tokens.owner)).send(makeMonitorInput())).body
      .data;
    await h.prisma.monitorRegionState.create({
      data: { monitorId: m.id, region: 'local', consecutiveFailures: 5, failing: true, lastCountedAt: new Date() },
    });
    const inc = await incident(ws.id, m.id, { openMonitorId: m.id });
    for (const role of ['member', 'viewer'] as const) {
      const res = await request(h.app).delete(`/api/v1/incidents/${inc.id}`).set(bearer(tokens[role]));
      expect([role, res.status, res.body.error?.code]).toEqual([role, 403, 'forbidden']);
    }
    const other = await makeWorkspace(h.prisma);
    expect((await request(h.app).delete(`/api/v1/incidents/${inc.id}`).set(bearer(other.tokens.owner))).status).toBe(
      404,
    );
    expect((await request(h.app).delete('/api/v1/incidents/not-a-uuid').set(bearer(tokens.owner))).status).toBe(404);

    const res = await request(h.app).delete(`/api/v1/incidents/${inc.id}`).set(bearer(tokens.admin));
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(await h.prisma.incident.findUnique({ where: { id: inc.id } })).toBeNull();
    expect(await h.prisma.monitorRegionState.count({ where: { monitorId: m.id } })).toBe(0);
    expect((await request(h.app).delete(`/api/v1/incidents/${inc.id}`).set(bearer(tokens.owner))).status).toBe(404);
  });

  it('at most one open incident per monitor is enforced by the database', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const m = (await request(h.app).post('/api/v1/monitors').set(bearer(tokens.owner)).send(makeMonitorInput())).body
      .data;
    await incident(ws.id, m.id, { openMonitorId: m.id });
    // A second unresolved one: refused by the unique index when it claims the monitor ...
    await expect(incident(ws.id, m.id, { openMonitorId: m.id })).rejects.toThrow(/Unique constraint|unique/i);
    await expect(incident(ws.id, m.id, { status: 'acknowledged', openMonitorId: m.id })).rejects.toThrow(
      /Unique constraint|unique/i,
    );
    // ... and by the CHECK when it does not.
    await expect(incident(ws.id, m.id, { openMonitorId: null })).rejects.toThrow(/incidents_open_monitor_id_check/);
    // Resolved ones and manual ones do not count.
    await expect(incident(ws.id, m.id, { status: 'resolved', resolvedAt: new Date() })).resolves.toMatchObject({
      openMonitorId: null,
    });
    await expect(incident(ws.id, m.id, { source: 'manual' })).resolves.toMatchObject({ openMonitorId: null });
  });

  it('the database refuses an incident whose openMonitorId does not match its state', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const m = (await request(h.app).post('/api/v1/monitors').set(bearer(tokens.owner)).send(makeMonitorInput())).body
      .data;
    const other = (await request(h.app).post('/api/v1/monitors').set(bearer(tokens.owner)).send(makeMonitorInput()))
      .body.data;
    const refused = /incidents_open_monitor_id_check/;
    // Open or acknowledged monitor incident without openMonitorId.
    await expect(incident(ws.id, m.id, { status: 'open', openMonitorId: null })).rejects.toThrow(refused);
    await expect(incident(ws.id, m.id, { status: 'acknowledged', openMonitorId: null })).rejects.toThrow(refused);
    // openMonitorId naming another monitor.
    await expect(incident(ws.id, m.id, { openMonitorId: other.id })).rejects.toThrow(refused);
    // Resolved, or manual, yet holding the monitor.
    await expect(
      incident(ws.id, m.id, { status: 'resolved', resolvedAt: new Date(), openMonitorId: m.id }),
    ).rejects.toThrow(refused);
    await expect(incident(ws.id, m.id, { source: 'manual', openMonitorId: m.id })).rejects.toThrow(refused);
    // Updates too: resolving without releasing the monitor, or releasing it while still open.
    const open = await incident(ws.id, m.id);
    expect(open.openMonitorId).toBe(m.id);
    await expect(
      h.prisma.incident.update({ where: { id: open.id }, data: { status: 'resolved', resolvedAt: new Date() } }),
    ).rejects.toThrow(refused);
    await expect(h.prisma.incident.update({ where: { id: open.id }, data: { openMonitorId: null } })).rejects.toThrow(
      refused,
    );
    await expect(
      h.prisma.incident.update({
        where: { id: open.id },
        data: { status: 'resolved', resolvedAt: new Date(), openMonitorId: null },
      }),
    ).resolves.toMatchObject({ status: 'resolved' });
    // Nothing of the refused rows was stored.
    expect(await h.prisma.incident.count({ where: { monitorId: { in: [m.id, other.id] } } })).toBe(1);
  });

  it('deleting a workspace with an open monitor incident is not blocked by the constraint', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const m = (await request(h.app).post('/api/v1/monitors').set(bearer(tokens.owner)).send(makeMonitorInput())).body
      .data;
    await incident(ws.id, m.id);
    // The monitor's deletion sets incidents.monitorId to NULL (ON DELETE SET NULL) before or after the cascade removes the
    // incident; either order must pass the CHECK.
    await h.prisma.workspace.delete({ where: { id: ws.id } });
    expect(await h.prisma.incident.count({ where: { workspaceId: ws.id } })).toBe(0);
    const again = await makeWorkspace(h.prisma);
    const m2 = (await request(h.app).post('/api/v1/monitors').set(bearer(again.tokens.owner)).send(makeMonitorInput()))
      .body.data;
    const inc = await incident(again.ws.id, m2.id);
    await h.prisma.$executeRaw`DELETE FROM monitors WHERE id = ${m2.id}::uuid`;
    expect(await h.prisma.incident.findUniqueOrThrow({ where: { id: inc.id } })).toMatchObject({
      monitorId: null,
      status: 'open',
    });
  });
});

describe('DELETE /incidents/{id} racing a check that resolves the incident', () => {
  it('never fails: both lock the monitor row first, so neither deadlocks the other', async () => {
    const { ws, tokens } = await makeWorkspace(h.prisma);
    const created = (
      await request(h.app)
        .post('/api/v1/monitors')
        .set(bearer(tokens.owner))
        .send(makeMonitorInput({ resolveThreshold: 1 }))
    ).body.data;
    const monitor = {
      ...(await h.prisma.monitor.findUniqueOrThrow({ where: { id: created.id } })),
      regions: ['local'],
    };
    const ctx = await authenticate(h.deps, { authorization: `Bearer ${tokens.admin}`, workspaceHeader: undefined });
    const pass = {
      outcome: 'up' as const,
      reason: null,
      responseMs: 12,
      statusCode: 200,
      phases: { dnsMs: null, connectMs: 1, tlsMs: null, waitingMs: 5 },
    };
    const errors: string[] = [];
    const base = Date.parse('2026-01-01T00:00:00Z');
    for (let i = 0; i < 40; i++) {
      const inc = await incident(ws.id, monitor.id, { openMonitorId: monitor.id, status: 'open', source: 'monitor' });
      const failing = { consecutiveFailures: 3, consecutivePasses: 0, failing: true, lastCountedAt: null };
      await h.prisma.monitorRegionState.upsert({
        where: { monitorId_region: { monitorId: monitor.id, region: 'local' } },
        create: { monitorId: monitor.id, region: 'local', ...failing },
        update: failing,
      });
      const at = new Date(base + i * 60_000);
      // The check resolves the incident (resolveThreshold 1) while the DELETE removes it: the check takes the monitor
      // row, then updates the incident; a DELETE that took the incident row first would then wait for the monitor.
      const [deleted, stored] = await Promise.allSettled([
        new Promise((r) => setTimeout(r, i % 4)).then(() =>
          deleteIncident(h.deps, { ctx: { ...ctx, now: new Date() }, input: { id: inc.id } }),
        ),
        storeCheckResultAlone(h.prisma, {
          monitor,
          region: 'local',
          slot: at,
          checkedAt: at,
          result: pass,
        }),
      ]);
      if (deleted.status === 'rejected') errors.push(`delete #${i}: ${(deleted.reason as Error).message}`);
      if (stored.status === 'rejected') errors.push(`check #${i}: ${(stored.reason as Error).message}`);
      else expect(stored.value.stored).toBe(true);
      if (await h.prisma.incident.findUnique({ where: { id: inc.id } })) errors.push(`incident #${i} not deleted`);
    }
    expect(errors).toEqual([]);
    expect(await h.prisma.checkResult.count({ where: { monitorId: monitor.id } })).toBe(40);
  }, 60_000);
});
