import {
  decryptSecret,
  secretKeyId,
  monitorRegions,
  parseHostPort,
  type DnsRecordType,
  type Keyring,
  type Logger,
  type PrismaClient,
} from '@statusvane/shared';
import type { DnsProbe } from '../probes/dns.probe.js';
import type { HttpProbe } from '../probes/http.probe.js';
import { evaluateHeartbeat } from '../probes/heartbeat.probe.js';
import { downResult } from '../probes/result.js';
import type { JsonAssertion } from '@statusvane/shared';
import type { TcpProbe } from '../probes/tcp.probe.js';
import type { ProbeResult } from '../probes/types.js';
import { loadMonitor } from './monitor-loader.js';
import type { MissedSlotWriter } from './missed-slots.js';
import type { ResultWriter, StoredCheck } from './store-result.js';

export interface CheckRunnerDeps {
  prisma: PrismaClient;
  keyring: Keyring;
  httpProbe: HttpProbe;
  tcpProbe: TcpProbe;
  dnsProbe: DnsProbe;
  logger: Logger;
  /** The deployment's CHECK_REGIONS, of which a monitor's `regions` are checked (monitorRegions). */
  checkRegions: readonly string[];
  /** Stores results with the flap logic, grouped with other checks' (createResultWriter). */
  results: ResultWriter;
  /** Stores the slots a late scheduled check skipped as missed, grouped likewise (createMissedSlotWriter). */
  missedSlots: MissedSlotWriter;
  now?: () => Date;
  /**
   * Heartbeats: arms the evaluation at the monitor's next deadline (CheckScheduler.armHeartbeatDeadline). Without it
   * heartbeats are judged only on their schedule, up to an interval after a deadline passed.
   */
  heartbeatDeadlines?: { armHeartbeatDeadline(monitorId: string, region: string, at: Date): Promise<void> };
  /**
   * Fast confirmation: queues the re-check a result asked for (CheckScheduler.armConfirmation). Without it, regions
   * are checked on their schedule only.
   */
  confirmations?: { armConfirmation(monitorId: string, region: string, slot: Date): Promise<void> };
  /**
   * Over capacity: where a check that starts more than an interval late learns which slots BullMQ skipped after it
   * (CheckScheduler.nextScheduledSlot), to record them as missed. Without it none is recorded.
   */
  schedules?: { nextScheduledSlot(monitorId: string, region: string): Promise<Date | null> };
  /**
   * Called once an incident has opened (its transaction committed): starts its escalation ladder. A failure is
   * logged, not thrown: the result is stored, and a retried job would not open the incident again.
   */
  onIncidentOpened?: (incidentId: string) => Promise<unknown>;
}

export type CheckOutcome =
  /** `heartbeat unchanged`: evaluated again with nothing new (the same ping or missed period is already stored). */
  | { skipped: 'monitor deleted' | 'monitor paused' | 'heartbeat pending' | 'heartbeat unchanged' }
  | ({
      result: ProbeResult;
      type: 'http' | 'tcp' | 'heartbeat' | 'dns';
      /** Slots BullMQ skipped because this check started more than an interval late, recorded as missed. */
      missedSlots?: number;
    } & StoredCheck);

const monitorSelect = {
  id: true,
  workspaceId: true,
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
  certificateExpiryDays: true,
  dnsRecordType: true,
  dnsResolver: true,
  dnsExpected: true,
  intervalSeconds: true,
  graceSeconds: true,
  lastPingAt: true,
  lastPingFailAt: true,
  runStartedAt: true,
  lastRunDurationMs: true,
  maxRunSeconds: true,
  schedule: true,
  timezone: true,
  metadata: true,
  openThreshold: true,
  resolveThreshold: true,
  confirmAfterSeconds: true,
  regions: true,
  quorum: true,
  enabled: true,
  createdAt: true,
} as const;

/**
 * Arms a heartbeat's next evaluation. A failure (Redis away) is logged, not thrown: the result is stored, and the
 * monitor's schedule evaluates it again within an interval, arming the deadline then.
 */
async function armDeadline(deps: CheckRunnerDeps, monitorId: string, region: string, at: Date): Promise<void> {
  if (!deps.heartbeatDeadlines) return;
  await deps.heartbeatDeadlines.armHeartbeatDeadline(monitorId, region, at).catch((err: Error) =>
    deps.logger.warn('heartbeat deadline not armed; the schedule evaluates it instead', {
      monitorId,
      error: err.message,
    }),
  );
}

/** Monitors whose secrets could not be opened, already logged by this process (with the key id they named). */
const reportedSecretProblems = new Set<string>();

/**
 * The monitor's headers and body, decrypted in memory only. A value that cannot be decrypted (its key is not in the
 * keyring, or the stored value is damaged) is a configuration problem, not a transient one: retrying the job cannot
 * help, so the check fails with `config_error` and the problem is logged once per monitor and process, naming the
 * key id and never the value or the decryption error's text (which may quote plaintext).
 */
function openSecrets(
  m: { id: string; headersEnc: string | null; bodyEnc: string | null; encKeyId: string | null },
  deps: Pick<CheckRunnerDeps, 'keyring' | 'logger'>,
): { headers: Record<string, string>; body: string | null } | { problem: string } {
  // Each value names its own key (a legacy value is read with encKeyId instead: see decryptSecret).
  const known = new Set([deps.keyring.current, ...deps.keyring.old].map((k) => k.id));
  const keyIds = [
    ...new Set([m.headersEnc, m.bodyEnc].filter((v): v is string => v !== null).map((v) => secretKeyId(v, m.encKeyId))),
  ];
  const missing = keyIds.find((id) => id === null || !known.has(id));
  let problem: string;
  if (missing !== undefined) {
    problem =
      missing === null
        ? 'a stored value names no encryption key (damaged value)'
        : `encryption key ${missing} is not configured (ENCRYPTION_KEY / ENCRYPTION_OLD_KEYS)`;
  } else {
    try {
      const headers = m.headersEnc
        ? (JSON.parse(decryptSecret(m.headersEnc, m.encKeyId, deps.keyring)) as unknown)
        : {};
      if (
        typeof headers !== 'object' ||
        headers === null ||
        Array.isArray(headers) ||
        Object.values(headers).some((v) => typeof v !== 'string')
      ) {
        throw new Error('not a headers object');
      }
      const body = m.bodyEnc ? decryptSecret(m.bodyEnc, m.encKeyId, deps.keyring) : null;
      return { headers: headers as Record<string, string>, body };
    } catch {
      problem = `the stored headers or body cannot be decrypted with key ${keyIds.join(', ')} (damaged value)`;
    }
  }
  const key = `${m.id}:${keyIds.join(',')}`;
  if (!reportedSecretProblems.has(key)) {
    if (reportedSecretProblems.size >= 10_000) reportedSecretProblems.clear();
    reportedSecretProblems.add(key);
    deps.logger.error(
      'monitor secrets cannot be decrypted: its checks fail with config_error until the key is configured or the headers and body are set again',
      {
        monitorId: m.id,
        encKeyIds: keyIds,
        problem,
      },
    );
  }
  return { problem };
}

/**
 * One check of one monitor for one scheduled slot: read the monitor (so a change made after scheduling applies),
 * run the probe for its type with secrets decrypted only in memory, then store the result and apply the flap
 * logic. Probes never throw; a database failure does, and the job is retried. A heartbeat is judged from its pings
 * instead, and its result is keyed by the ping or missed deadline it reports rather than by the job's slot
 * (heartbeat.probe.ts); its next deadline is armed after every evaluation.
 */
export async function runCheck(
  deps: CheckRunnerDeps,
  job: { monitorId: string; region: string; slot: Date; notBefore?: Date | null },
): Promise<CheckOutcome> {
  const m = await loadMonitor(deps.prisma, job.monitorId, monitorSelect);
  if (!m) return { skipped: 'monitor deleted' };
  if (!m.enabled) return { skipped: 'monitor paused' };

  let result: ProbeResult;
  let slot = job.slot;
  let checkedAt: Date | null = null;
  let nextDeadline: Date | null = null;
  if (m.type === 'heartbeat') {
    // A deadline job is the evaluation at its deadline, even if a clock ahead of ours let it run a moment early.
    const clock = deps.now?.() ?? new Date();
    const now = job.notBefore && job.notBefore > clock ? job.notBefore : clock;
    const verdict = evaluateHeartbeat({
      now,
      createdAt: m.createdAt,
      intervalSeconds: m.intervalSeconds,
      graceSeconds: m.graceSeconds,
      lastPingAt: m.lastPingAt,
      lastPingFailAt: m.lastPingFailAt,
      runStartedAt: m.runStartedAt,
      lastRunDurationMs: m.lastRunDurationMs,
      maxRunSeconds: m.maxRunSeconds,
      schedule: m.schedule,
      timezone: m.timezone,
    });
    nextDeadline = verdict.nextEvaluationAt;
    if (!verdict.result || !verdict.slot) {
      await armDeadline(deps, m.id, job.region, nextDeadline);
      return { skipped: 'heartbeat pending' };
    }
    // One result per ping and per missed period, whichever evaluation stores it first (heartbeat.probe.ts).
    result = verdict.result;
    slot = verdict.slot;
    checkedAt = now;
  } else if (m.type === 'tcp') {
    const { host, port } = parseHostPort(m.target!);
    result = await deps.tcpProbe.probe({
      host,
      port,
      timeoutMs: m.timeoutMs,
      degradedAfterMs: m.degradedAfterMs,
      latencyThresholdMs: m.latencyThresholdMs,
    });
  } else if (m.type === 'dns') {
    result = await deps.dnsProbe.probe({
      name: m.target!,
      // Written only from a parsed DnsRecordType.
      recordType: (m.dnsRecordType ?? 'A') as DnsRecordType,
      resolver: m.dnsResolver,
      expected: m.dnsExpected,
      timeoutMs: m.timeoutMs,
      degradedAfterMs: m.degradedAfterMs,
      latencyThresholdMs: m.latencyThresholdMs,
    });
  } else {
    const secrets = openSecrets(m, deps);
    if ('problem' in secrets) {
      result = downResult(`config_error: ${secrets.problem}`);
    } else {
      result = await deps.httpProbe.probe({
        url: m.target!,
        method: m.method,
        headers: secrets.headers,
        body: secrets.body,
        contentType: m.contentType,
        expectedStatusCodes: m.expectedStatusCodes,
        keyword: m.keyword,
        keywordAbsent: m.keywordAbsent,
        jsonAssertion: (m.jsonAssertion as JsonAssertion | null) ?? null,
        timeoutMs: m.timeoutMs,
        degradedAfterMs: m.degradedAfterMs,
        latencyThresholdMs: m.latencyThresholdMs,
        certificateExpiryDays: m.certificateExpiryDays,
      });
    }
  }

  checkedAt ??= deps.now?.() ?? new Date();
  // Whether it was taken in maintenance is decided where it is stored (store-result.ts), in the same statements.
  const regions = monitorRegions(deps.checkRegions, m);
  const stored = await deps.results.write({
    monitor: { ...m, regions },
    region: job.region,
    slot,
    checkedAt,
    result,
  });
  if (nextDeadline) await armDeadline(deps, m.id, job.region, nextDeadline);
  // After the commit, also when this result was already stored (a job re-run after a crash): queued twice, the
  // re-check is one job, and its result one row.
  if (stored.confirmSlot && deps.confirmations) {
    const at = stored.confirmSlot;
    await deps.confirmations.armConfirmation(m.id, job.region, at).catch((err: Error) =>
      deps.logger.warn('re-check not queued; the next scheduled check of the region asks again', {
        monitorId: m.id,
        region: job.region,
        error: err.message,
      }),
    );
  }
  if (stored.opened)
    deps.logger.info('incident opened', { monitorId: m.id, incidentId: stored.opened, reason: result.reason });
  if (stored.opened && deps.onIncidentOpened) {
    const incidentId = stored.opened;
    await deps
      .onIncidentOpened(incidentId)
      .catch((err: Error) => deps.logger.error('escalation not scheduled', { incidentId, error: err.message }));
  }
  if (stored.resolved) deps.logger.info('incident resolved', { monitorId: m.id, incidentId: stored.resolved });
  if (m.type === 'heartbeat' && !stored.stored) return { skipped: 'heartbeat unchanged' };
  return { result, type: m.type, ...stored };
}
