/** Bulk data for the bench, written straight to PostgreSQL (what 10,000 POSTs would leave, in seconds). */
import { randomUUID } from 'node:crypto';
import { randomSecret, type PrismaClient } from '@statusvane/shared';
import { createToken, createWorkspace } from '../../apps/api/src/services/admin/admin-commands.js';

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

/** Creates `count` monitors and their components with createMany, 2,000 rows a statement. Returns the monitors. */
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
  for (let i = 0; i < rows.length; i += 2000) {
    const chunk = rows.slice(i, i + 2000);
    await prisma.component.createMany({
      data: chunk.map((r) => ({ id: r.componentId, workspaceId: spec.workspaceId, name: r.name })),
    });
    await prisma.monitor.createMany({
      data: chunk.map((r) => ({
        id: r.id,
        workspaceId: spec.workspaceId,
        componentId: r.componentId,
        name: r.name,
        type: spec.type,
        target: spec.type === 'http' ? spec.target! : null,
        intervalSeconds: spec.intervalSeconds,
        timeoutMs: 10_000,
        openThreshold: spec.openThreshold ?? 2,
        resolveThreshold: 2,
        enabled: spec.enabled,
        pingSecret: r.pingSecret,
        graceSeconds: 60,
      })),
    });
  }
  return rows.map((r) => ({ id: r.id, pingSecret: r.pingSecret }));
}
