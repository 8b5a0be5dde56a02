import type { Prisma } from '@statusvane/shared';

/** The columns a monitor record needs; secrets (headersEnc, bodyEnc, pingSecret) are read only to derive flags. */
export const monitorRecordSelect = {
  id: true,
  name: true,
  componentId: true,
  type: true,
  target: true,
  method: true,
  intervalSeconds: true,
  timeoutMs: true,
  openThreshold: true,
  resolveThreshold: true,
  expectedStatusCodes: true,
  keyword: true,
  keywordAbsent: true,
  degradedAfterMs: true,
  latencyThresholdMs: true,
  headerNames: true,
  bodyEnc: true,
  contentType: true,
  environment: true,
  metadata: true,
  jsonAssertion: true,
  graceSeconds: true,
  enabled: true,
  status: true,
  pingSecret: true,
  lastCheckedAt: true,
  createdAt: true,
} satisfies Prisma.MonitorSelect;

export type MonitorRow = Prisma.MonitorGetPayload<{ select: typeof monitorRecordSelect }>;

/** The public monitor record. Headers and body are write-only: only their names and presence show. */
export function toMonitorRecord(row: MonitorRow, opts: { publicBaseUrl: string; maintenanceUntil: Date | null }) {
  return {
    id: row.id,
    name: row.name,
    componentId: row.componentId,
    type: row.type,
    target: row.target,
    method: row.method,
    intervalSeconds: row.intervalSeconds,
    timeoutMs: row.timeoutMs,
    openThreshold: row.openThreshold,
    resolveThreshold: row.resolveThreshold,
    expectedStatusCodes: row.expectedStatusCodes,
    keyword: row.keyword,
    keywordAbsent: row.keywordAbsent,
    degradedAfterMs: row.degradedAfterMs,
    latencyThresholdMs: row.latencyThresholdMs,
    headerNames: row.headerNames,
    hasBody: row.bodyEnc !== null,
    contentType: row.contentType,
    jsonAssertion: row.jsonAssertion ?? null,
    environment: row.environment,
    metadata: row.metadata as Record<string, string>,
    graceSeconds: row.type === 'heartbeat' ? row.graceSeconds : null,
    enabled: row.enabled,
    status: !row.enabled ? 'paused' : opts.maintenanceUntil ? 'maintenance' : row.status,
    maintenanceUntil: opts.maintenanceUntil?.toISOString() ?? null,
    openEndedMaintenance: false,
    lastCheckedAt: row.lastCheckedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    pingUrl: row.type === 'heartbeat' && row.pingSecret ? `${opts.publicBaseUrl}/ping/${row.pingSecret}` : null,
  };
}
export type MonitorRecord = ReturnType<typeof toMonitorRecord>;
