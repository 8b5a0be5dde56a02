import {
  decryptSecret,
  maintenanceUntilByComponent,
  parseHostPort,
  type Keyring,
  type Logger,
  type PrismaClient,
} from '@statusvane/shared';
import type { HttpProbe } from '../probes/http.probe.js';
import { evaluateHeartbeat } from '../probes/heartbeat.probe.js';
import type { JsonAssertion } from '@statusvane/shared';
import type { TcpProbe } from '../probes/tcp.probe.js';
import type { ProbeResult } from '../probes/types.js';
import { loadMonitor } from './monitor-loader.js';
import { storeCheckResult, type StoredCheck } from './store-result.js';

export interface CheckRunnerDeps {
  prisma: PrismaClient;
  keyring: Keyring;
  httpProbe: HttpProbe;
  tcpProbe: TcpProbe;
  logger: Logger;
  now?: () => Date;
  /**
   * Called once an incident has opened (its transaction committed): starts its escalation ladder. A failure is
   * logged, not thrown: the result is stored, and a retried job would not open the incident again.
   */
  onIncidentOpened?: (incidentId: string) => Promise<unknown>;
}

export type CheckOutcome =
  | { skipped: 'monitor deleted' | 'monitor paused' | 'heartbeat pending' }
  | ({ result: ProbeResult } & StoredCheck);

const monitorSelect = {
  id: true,
  workspaceId: true,
  componentId: true,
  name: true,
  type: true,
  target: true,
  method: true,
  timeoutMs: true,
  expectedStatusCodes: true,
  keyword: true,
  keywordAbsent: true,
  degradedAfterMs: true,
  latencyThresholdMs: true,
  headersEnc: true,
  bodyEnc: true,
  encKeyId: true,
  contentType: true,
  jsonAssertion: true,
  intervalSeconds: true,
  graceSeconds: true,
  lastPingAt: true,
  lastPingFailAt: true,
  metadata: true,
  openThreshold: true,
  resolveThreshold: true,
  enabled: true,
  createdAt: true,
} as const;

/**
 * One check of one monitor for one scheduled slot: read the monitor (so a change made after scheduling applies),
 * run the probe for its type with secrets decrypted only in memory, then store the result and apply the flap
 * logic. Probes never throw; a database failure does, and the job is retried.
 */
export async function runCheck(deps: CheckRunnerDeps, job: { monitorId: string; region: string; slot: Date }): Promise<CheckOutcome> {
  const m = await loadMonitor(deps.prisma, job.monitorId, monitorSelect);
  if (!m) return { skipped: 'monitor deleted' };
  if (!m.enabled) return { skipped: 'monitor paused' };

  let result: ProbeResult | null;
  if (m.type === 'heartbeat') {
    result = evaluateHeartbeat({
      now: deps.now?.() ?? new Date(),
      createdAt: m.createdAt,
      intervalSeconds: m.intervalSeconds,
      graceSeconds: m.graceSeconds,
      lastPingAt: m.lastPingAt,
      lastPingFailAt: m.lastPingFailAt,
    });
    if (!result) return { skipped: 'heartbeat pending' };
  } else if (m.type === 'tcp') {
    const { host, port } = parseHostPort(m.target!);
    result = await deps.tcpProbe.probe({ host, port, timeoutMs: m.timeoutMs, degradedAfterMs: m.degradedAfterMs, latencyThresholdMs: m.latencyThresholdMs });
  } else {
    // Each value names its own key; encKeyId only serves values written before they did (see decryptSecret).
    const headers = m.headersEnc ? (JSON.parse(decryptSecret(m.headersEnc, m.encKeyId, deps.keyring)) as Record<string, string>) : {};
    const body = m.bodyEnc ? decryptSecret(m.bodyEnc, m.encKeyId, deps.keyring) : null;
    result = await deps.httpProbe.probe({
      url: m.target!,
      method: m.method,
      headers,
      body,
      contentType: m.contentType,
      expectedStatusCodes: m.expectedStatusCodes,
      keyword: m.keyword,
      keywordAbsent: m.keywordAbsent,
      jsonAssertion: (m.jsonAssertion as JsonAssertion | null) ?? null,
      timeoutMs: m.timeoutMs,
      degradedAfterMs: m.degradedAfterMs,
      latencyThresholdMs: m.latencyThresholdMs,
    });
  }

  const checkedAt = deps.now?.() ?? new Date();
  const inMaintenance = (await maintenanceUntilByComponent(deps.prisma, m.workspaceId, [m.componentId], checkedAt)).has(m.componentId);
  const stored = await storeCheckResult(deps.prisma, { monitor: m, region: job.region, slot: job.slot, checkedAt, result, inMaintenance });
  if (stored.opened) deps.logger.info('incident opened', { monitorId: m.id, incidentId: stored.opened, reason: result.reason });
  if (stored.opened && deps.onIncidentOpened) {
    const incidentId = stored.opened;
    await deps.onIncidentOpened(incidentId).catch((err: Error) => deps.logger.error('escalation not scheduled', { incidentId, error: err.message }));
  }
  if (stored.resolved) deps.logger.info('incident resolved', { monitorId: m.id, incidentId: stored.resolved });
  return { result, ...stored };
}
