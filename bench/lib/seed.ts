/** Bulk data for the bench, written straight to PostgreSQL (what 10,000 POSTs would leave, in seconds). */
import { randomUUID } from 'node:crypto';
import { randomSecret, type PrismaClient } from '@statusvane/shared';
import { createToken, createWorkspace } from '../../apps/api/src/admin/admin-commands.js';

export async function seedWorkspace(prisma: PrismaClient, slug: string): Promise<{ id: string; token: string }> {
  const ws = await createWorkspace(prisma, { slug, name: `Bench ${slug}`, plan: 'business' });
  const { token } = await createToken(prisma, { kind: 'org', workspace: ws.id, role: 'owner', name: 'bench' });
  return { id: ws.id, token };
}

export interface BulkMonitors {
  workspaceId: string;
  count: number;
  type: 'http' | 'heartbeat';
  /** http: the target URL. */
  target?: string;
  intervalSeconds: number;
  enabled: boolean;
  openThreshold?: number;
  name: string;
}

/**
 * Creates `count` monitors and their components, 5,000 rows a statement, each chunk's rows as one JSON parameter:
 * Prisma's createMany handles every value of its rows on the client (100,000 monitors took 344 s, nearly all of it
 * there; PostgreSQL inserts a chunk of 2,000 in 0.4 s). Returns the monitors.
 */
export async function createMonitorsBulk(
  prisma: PrismaClient,
  spec: BulkMonitors,
): Promise<Array<{ id: string; pingSecret: string | null }>> {
  const rows = Array.from({ length: spec.count }, (_, i) => ({
    id: randomUUID(),
    componentId: randomUUID(),
    name: `${spec.name} ${i + 1}`,
    pingSecret: spec.type === 'heartbeat' ? randomSecret(24) : null,
  }));
  const target = spec.type === 'http' ? spec.target! : null;
  for (let i = 0; i < rows.length; i += 5000) {
    const chunk = JSON.stringify(rows.slice(i, i + 5000));
    await prisma.$transaction([
      prisma.$executeRaw`
        INSERT INTO components (id, "workspaceId", name)
        SELECT "componentId", ${spec.workspaceId}::uuid, name
        FROM json_to_recordset(${chunk}::json) AS v("componentId" uuid, name text)`,
      prisma.$executeRaw`
        INSERT INTO monitors (id, "workspaceId", "componentId", name, type, target, "intervalSeconds", "timeoutMs",
          "openThreshold", "resolveThreshold", enabled, "pingSecret", "graceSeconds", "updatedAt")
        SELECT id, ${spec.workspaceId}::uuid, "componentId", name, ${spec.type}::"MonitorType", ${target}::text,
          ${spec.intervalSeconds}::int, 10000, ${spec.openThreshold ?? 2}::int, 2, ${spec.enabled}::boolean, "pingSecret", 60, now()
        FROM json_to_recordset(${chunk}::json) AS v(id uuid, "componentId" uuid, name text, "pingSecret" text)`,
    ]);
  }
  return rows.map((r) => ({ id: r.id, pingSecret: r.pingSecret }));
}

/**
 * Monitors for the filtered list (issue 14): `count` http monitors, enabled, with the spread a team's filter meets in
 * life. Over every 24 monitors: statuses up 4, down 1, pending 1 (per 6), teams payments and search (per 12: 6
 * each), names `checkout-api …` / `checkout-web …` (per 24: 12 each), so `status=up,down&type=http&q=API&
 * metadata.team=payments` matches 5 in 24 of them. Seeded enabled with no schedule: the bench deletes the workspace
 * before its worker starts. Returns the query and how many monitors it matches.
 */
export async function seedFilterableMonitors(
  prisma: PrismaClient,
  spec: { workspaceId: string; count: number; target: string },
): Promise<{ query: string; matching: number }> {
  const rows = await createMonitorsBulk(prisma, {
    workspaceId: spec.workspaceId,
    count: spec.count,
    type: 'http',
    target: spec.target,
    intervalSeconds: 60,
    enabled: true,
    name: 'Filterable',
  });
  const ids = rows.map((r) => r.id);
  await prisma.$executeRaw`
    UPDATE monitors m SET
      status = (ARRAY['up', 'up', 'down', 'up', 'pending', 'up'])[1 + v.n % 6]::"MonitorStatus",
      metadata = jsonb_build_object('team', (ARRAY['payments', 'search'])[1 + v.n / 6 % 2], 'tier', (v.n % 3 + 1)::text),
      name = (ARRAY['checkout-api ', 'checkout-web '])[1 + v.n / 12 % 2] || (v.n + 1)
    FROM unnest(${ids}::uuid[]) WITH ORDINALITY AS v0(id, o), LATERAL (SELECT (v0.o - 1)::int AS n) v
    WHERE m.id = v0.id`;
  const query = 'status=up,down&type=http&q=API&metadata.team=payments';
  const matching = await prisma.monitor.count({
    where: {
      workspaceId: spec.workspaceId,
      enabled: true,
      status: { in: ['up', 'down'] },
      type: 'http',
      name: { contains: 'api', mode: 'insensitive' },
      metadata: { path: ['team'], equals: 'payments' },
    },
  });
  return { query, matching };
}
