import {
  type MonitorKind,
  decryptSecret,
  hostAllowed,
  joinSteps,
  openStepSecrets,
  renderTemplate,
  ResponseSchemaCache,
  secretKeyId,
  type StoredApiStep,
  monitorRegions,
  parseHostPort,
  type DnsRecordType,
  type Keyring,
  type Logger,
  type PrismaClient,
  DEFAULT_DOMAIN_EXPIRY_DAYS,
  normalizeDomain,
  Prisma,
  traceParentOf,
  type TraceSpan,
  type Tracing,
  type Partition,
  hotQuery,
  hotStatement,
} from '@statusvane/shared';
import type { DnsProbe } from '../probes/dns.probe.js';
import type { HttpProbe } from '../probes/http.probe.js';
import type { ApiProbe, RunSecret } from '../probes/api.probe.js';
import { evaluateHeartbeat } from '../probes/heartbeat.probe.js';
import { judgeDomain } from '../probes/rdap.probe.js';
import type { DomainLookups } from './domain-lookups.js';
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
  /** api monitors' steps, each request made by `httpProbe`. */
  apiProbe: ApiProbe;
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
   * Domain monitors' registry answers, shared in Redis (createDomainLookups). Without it a domain check fails with
   * `config_error`.
   */
  domainLookups?: DomainLookups;
  /** OpenTelemetry (startTracing): a span per check and per api step; null or absent when not configured. */
  tracing?: Tracing | null;
  /** Compiled response schemas by monitor id, version and step: compiled once per monitor version, never per check. */
  schemas?: ResponseSchemaCache;
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
   * (CheckScheduler.nextScheduledSlot, or nextPartitionSlot for a partition's job), to record them as missed. Without it
   * none is recorded.
   */
  schedules?: {
    nextScheduledSlot(monitorId: string, region: string): Promise<Date | null>;
    nextPartitionSlot(partition: Partition): Promise<Date | null>;
  };
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
      type: MonitorKind;
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
  responseSchema: true,
  steps: true,
  stepSecretsEnc: true,
  secretRefs: true,
  version: true,
  certificateExpiryDays: true,
  sendTraceparent: true,
  dnsRecordType: true,
  dnsResolver: true,
  dnsExpected: true,
  domainExpiryDays: true,
  intervalSeconds: true,
  graceSeconds: true,
  lastPingAt: true,
  lastPingFailAt: true,
  runStartedAt: true,
  lastRunDurationMs: true,
  maxRunSeconds: true,
  minRunSeconds: true,
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
  // Most monitors have neither: nothing to open, no key to look for.
  if (m.headersEnc === null && m.bodyEnc === null) return { headers: {}, body: null };
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

type CheckedMonitor = NonNullable<Awaited<ReturnType<typeof loadMonitor<typeof monitorSelect>>>>;

/** A partition's member as its job reads it: what a check reads, and when it joined the partition. */
export type PartitionMember = CheckedMonitor & { scheduledSince: Date };

/**
 * The members' read (readPartitionMembers): what a check reads of a monitor, and when it joined its partition. A hot
 * statement (docs/adr/0021-hot-statements-on-the-pool.md): through Prisma, its rows cost about 100 µs of CPU each, a
 * check's; the columns are monitorSelect's, so a field added there is read here too.
 */
const PARTITION_MEMBERS = hotStatement(`
  SELECT ${Object.keys(monitorSelect)
    .map((column) => `"${column}"`)
    .join(', ')}, "scheduledSince"
  FROM monitors
  WHERE enabled AND "intervalSeconds" = $1 AND "checkOffsetMs" = $2 AND "scheduledSince" <= $3`);

/**
 * The members of a partition for one of its slots, in one statement (docs/adr/0020-partitioned-scheduling.md): the
 * enabled monitors of its interval and offset that its region checks (monitorRegions: the statement reads those of
 * every region, which this keeps) and that had joined it by the slot (a monitor created or resumed since is checked at
 * once by a job of its own, then from the next slot).
 */
export async function readPartitionMembers(
  deps: Pick<CheckRunnerDeps, 'prisma' | 'checkRegions'>,
  partition: Partition,
  slot: Date,
): Promise<PartitionMember[]> {
  const { everyMs, offsetMs, region } = partition;
  if (everyMs % 1000 !== 0) return [];
  const rows = await hotQuery<PartitionMember>(deps.prisma, PARTITION_MEMBERS, [
    everyMs / 1000,
    offsetMs,
    slot.toISOString(),
  ]);
  return rows.filter((m) => monitorRegions(deps.checkRegions, m).includes(region));
}

/** A heartbeat's verdict: a result to store (keyed by its ping or missed deadline), or none yet; its next deadline. */
type HeartbeatVerdict = { result: ProbeResult; slot: Date; checkedAt: Date; nextDeadline: Date } | { pending: Date };

/**
 * One check of one monitor for one scheduled slot: read the monitor (so a change made after scheduling applies),
 * run the probe for its type with secrets decrypted only in memory, then store the result and apply the flap
 * logic. Probes never throw; a database failure does, and the job is retried. A heartbeat is judged from its pings
 * instead, and its result is keyed by the ping or missed deadline it reports rather than by the job's slot
 * (heartbeat.probe.ts); its next deadline is armed after every evaluation.
 */
export async function runCheck(
  deps: CheckRunnerDeps,
  job: {
    monitorId: string;
    region: string;
    slot: Date;
    notBefore?: Date | null;
    /** The check's span (check.processor.ts), whose context an http check's `traceparent` carries. */
    span?: TraceSpan | null;
    /** The monitor as its partition's job read it just now (readPartitionMembers): not read again. */
    monitor?: CheckedMonitor;
  },
): Promise<CheckOutcome> {
  const m = job.monitor ?? (await loadMonitor(deps.prisma, job.monitorId, monitorSelect));
  if (!m) return { skipped: 'monitor deleted' };
  if (!m.enabled) return { skipped: 'monitor paused' };

  // The result: the heartbeat's verdict from its pings, or a probe of the target.
  let taken: { result: ProbeResult; slot: Date; checkedAt: Date; nextDeadline: Date | null };
  if (m.type === 'heartbeat') {
    const verdict = judgeHeartbeat(deps, m, job.notBefore);
    if ('pending' in verdict) {
      await armDeadline(deps, m.id, job.region, verdict.pending);
      return { skipped: 'heartbeat pending' };
    }
    taken = verdict;
  } else {
    const result = await probeTarget(deps, m, job.span ?? null);
    taken = { result, slot: job.slot, checkedAt: deps.now?.() ?? new Date(), nextDeadline: null };
  }

  // Stored with the flap logic; whether it was taken in maintenance is decided there, in the same statements.
  const stored = await deps.results.write({
    // Field by field, what the store reads: a spread of the whole row (some fifty fields) cost each check a copy that
    // stays alive until its group commits.
    monitor: {
      id: m.id,
      workspaceId: m.workspaceId,
      name: m.name,
      type: m.type,
      metadata: m.metadata,
      openThreshold: m.openThreshold,
      resolveThreshold: m.resolveThreshold,
      intervalSeconds: m.intervalSeconds,
      confirmAfterSeconds: m.confirmAfterSeconds,
      regions: monitorRegions(deps.checkRegions, m),
      quorum: m.quorum,
    },
    region: job.region,
    slot: taken.slot,
    checkedAt: taken.checkedAt,
    result: taken.result,
  });
  // After the commit: the heartbeat's next deadline, the re-check asked for, the new incident's ladder.
  // Most results need nothing after their commit: no call (and no promise) for them.
  if (taken.nextDeadline || stored.confirmSlot || stored.opened || stored.resolved) {
    await afterStored(deps, { monitorId: m.id, region: job.region }, taken, stored);
  }
  if (m.type === 'heartbeat' && !stored.stored) return { skipped: 'heartbeat unchanged' };
  return { result: taken.result, type: m.type, ...stored };
}

/**
 * A heartbeat judged from its pings at this moment: one result per ping and per missed period, whichever evaluation
 * stores it first (heartbeat.probe.ts). A deadline job is the evaluation at its deadline (`notBefore`), even if a
 * clock ahead of ours let it run a moment early.
 */
function judgeHeartbeat(
  deps: CheckRunnerDeps,
  m: CheckedMonitor,
  notBefore: Date | null | undefined,
): HeartbeatVerdict {
  const clock = deps.now?.() ?? new Date();
  const now = notBefore && notBefore > clock ? notBefore : clock;
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
    minRunSeconds: m.minRunSeconds,
    schedule: m.schedule,
    timezone: m.timezone,
  });
  if (!verdict.result || !verdict.slot) return { pending: verdict.nextEvaluationAt };
  return { result: verdict.result, slot: verdict.slot, checkedAt: now, nextDeadline: verdict.nextEvaluationAt };
}

/**
 * The probe of a tcp, dns or http monitor's target, or an api monitor's steps (secrets opened in memory only: the
 * monitor's own and the workspace secrets it names).
 */
async function probeTarget(deps: CheckRunnerDeps, m: CheckedMonitor, span: TraceSpan | null): Promise<ProbeResult> {
  if (m.type === 'tcp') {
    const { host, port } = parseHostPort(m.target!);
    return deps.tcpProbe.probe({
      host,
      port,
      timeoutMs: m.timeoutMs,
      degradedAfterMs: m.degradedAfterMs,
      latencyThresholdMs: m.latencyThresholdMs,
    });
  }
  if (m.type === 'domain') return probeDomain(deps, m);
  if (m.type === 'dns')
    return deps.dnsProbe.probe({
      name: m.target!,
      // Written only from a parsed DnsRecordType.
      recordType: (m.dnsRecordType ?? 'A') as DnsRecordType,
      resolver: m.dnsResolver,
      expected: m.dnsExpected,
      timeoutMs: m.timeoutMs,
      degradedAfterMs: m.degradedAfterMs,
      latencyThresholdMs: m.latencyThresholdMs,
    });
  // Most monitors name no workspace secret: no read, and no promise to wait on.
  const workspaceSecrets =
    m.secretRefs.length === 0 ? { secrets: new Map<string, RunSecret>() } : await loadWorkspaceSecrets(deps, m);
  if ('problem' in workspaceSecrets) return downResult(`config_error: ${workspaceSecrets.problem}`);
  if (m.type === 'api') return probeSteps(deps, m, workspaceSecrets.secrets);
  const secrets = openSecrets(m, deps);
  if ('problem' in secrets) return downResult(`config_error: ${secrets.problem}`);
  const filled = fillHttpSecrets(m.target!, secrets, workspaceSecrets.secrets);
  if ('reason' in filled) return downResult(filled.reason);
  const schema = m.responseSchema ? schemaOf(deps, `${m.id}:${m.version}`, m.responseSchema as object) : null;
  if (schema instanceof Error) return downResult(`config_error: responseSchema: ${schema.message}`);
  // W3C trace context, unless turned off or the monitor sends a traceparent of its own (which then stands).
  const trace =
    m.sendTraceparent && !Object.keys(filled.headers).some((h) => h.toLowerCase() === 'traceparent')
      ? traceParentOf(span)
      : null;
  const result = await deps.httpProbe.probe({
    url: m.target!,
    method: m.method,
    headers: trace ? { ...filled.headers, traceparent: trace.header } : filled.headers,
    body: filled.body,
    responseSchema: schema,
    secretHosts: filled.secretHosts,
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
  return trace ? { ...result, traceId: trace.traceId } : result;
}

/**
 * A domain monitor's registration, from the answer shared by every monitor of the domain; what it found is kept on
 * the monitor (its record's `domain`), unless the lookup failed (the last known registration stays) or the target
 * changed meanwhile.
 */
async function probeDomain(deps: CheckRunnerDeps, m: CheckedMonitor): Promise<ProbeResult> {
  if (!deps.domainLookups) return downResult('config_error: this worker has no RDAP lookups configured');
  const answer = await deps.domainLookups.lookup(normalizeDomain(m.target!) ?? m.target!);
  if (answer.kind !== 'error') {
    // A DomainInfo (monitor-record.ts reads it back).
    const info = answer.kind === 'found' ? { expiresAt: answer.expiresAt, registrar: answer.registrar } : null;
    await deps.prisma.monitor.updateMany({
      where: { id: m.id, type: 'domain', target: m.target },
      data: { domain: info ?? Prisma.DbNull },
    });
  }
  return judgeDomain(answer, deps.now?.() ?? new Date(), m.domainExpiryDays ?? DEFAULT_DOMAIN_EXPIRY_DAYS);
}

/** The process's response schemas when the runtime gave none (tests that build their deps by hand). */
const defaultSchemas = new ResponseSchemaCache();
const schemaOf = (deps: CheckRunnerDeps, key: string, schema: object) =>
  (deps.schemas ?? defaultSchemas).get(key, schema);

/**
 * The workspace secrets a monitor names (`secretRefs`), decrypted in memory only. A name the workspace no longer has
 * is left out (the request that uses it fails, naming it); a value no configured key opens fails the check with
 * `config_error`, naming the secret and never its value.
 */
async function loadWorkspaceSecrets(
  deps: CheckRunnerDeps,
  m: CheckedMonitor,
): Promise<{ secrets: Map<string, RunSecret> } | { problem: string }> {
  const secrets = new Map<string, RunSecret>();
  const rows = await deps.prisma.workspaceSecret.findMany({
    where: { workspaceId: m.workspaceId, name: { in: m.secretRefs } },
    select: { name: true, valueEnc: true, allowedHosts: true },
  });
  for (const row of rows) {
    try {
      secrets.set(row.name, { value: decryptSecret(row.valueEnc, null, deps.keyring), allowedHosts: row.allowedHosts });
    } catch {
      return {
        problem: `secret ${row.name} cannot be decrypted with the configured keys (key ${secretKeyId(row.valueEnc)})`,
      };
    }
  }
  return { secrets };
}

/**
 * An http monitor's headers and body with `{{secrets.NAME}}` filled in (other braces are sent as written), and the
 * hosts the request may then go to: every secret used must allow the target's host.
 */
function fillHttpSecrets(
  target: string,
  stored: { headers: Record<string, string>; body: string | null },
  secrets: ReadonlyMap<string, RunSecret>,
): { headers: Record<string, string>; body: string | null; secretHosts: string[] | null } | { reason: string } {
  if (secrets.size === 0) return { ...stored, secretHosts: null };
  const values = { extracts: new Map<string, string>(), secrets: new Map([...secrets].map(([k, v]) => [k, v.value])) };
  const used = new Set<string>();
  const fill = (text: string): string | { reason: string } => {
    const r = renderTemplate(text, values, true);
    if (!r.ok) return { reason: r.reason };
    for (const name of r.secretsUsed) used.add(name);
    return r.text;
  };
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(stored.headers)) {
    const r = fill(value);
    if (typeof r !== 'string') return r;
    headers[name] = r;
  }
  const body = stored.body === null ? null : fill(stored.body);
  if (body !== null && typeof body !== 'string') return body;
  const host = new URL(target).hostname;
  let secretHosts: string[] | null = null;
  for (const name of used) {
    const allowed = secrets.get(name)!.allowedHosts;
    if (!hostAllowed(host, allowed)) return { reason: `secret_host_not_allowed: ${name} may not be sent to ${host}` };
    secretHosts = secretHosts === null ? [...allowed] : secretHosts.filter((h) => hostAllowed(h, allowed));
  }
  return { headers, body, secretHosts };
}

/** An api monitor's run: its steps whole (headers and bodies decrypted in memory only) and their schemas compiled. */
async function probeSteps(
  deps: CheckRunnerDeps,
  m: CheckedMonitor,
  secrets: Map<string, RunSecret>,
): Promise<ProbeResult> {
  const stored = (m.steps ?? []) as StoredApiStep[];
  let steps;
  try {
    steps = joinSteps(stored, openStepSecrets(m.stepSecretsEnc, deps.keyring));
  } catch {
    const keyId = m.stepSecretsEnc ? secretKeyId(m.stepSecretsEnc) : null;
    return downResult(`config_error: the steps' headers and bodies cannot be decrypted (key ${keyId})`);
  }
  return deps.apiProbe.probe({
    steps,
    validators: steps.map((s, i) =>
      s.responseSchema ? schemaOf(deps, `${m.id}:${m.version}:${i}`, s.responseSchema) : null,
    ),
    secrets,
    timeoutMs: m.timeoutMs,
    degradedAfterMs: m.degradedAfterMs,
    latencyThresholdMs: m.latencyThresholdMs,
  });
}

/**
 * What follows a stored result, after its commit: the heartbeat's next deadline armed, the re-check it asked for
 * queued, the incident it opened logged and its ladder started, the one it resolved logged. Failures are logged, not
 * thrown: the result is stored, and a retried job would not open the incident again.
 */
async function afterStored(
  deps: CheckRunnerDeps,
  at: { monitorId: string; region: string },
  taken: { result: ProbeResult; nextDeadline: Date | null },
  stored: StoredCheck,
): Promise<void> {
  const { monitorId, region } = at;
  if (taken.nextDeadline) await armDeadline(deps, monitorId, region, taken.nextDeadline);
  // Also when this result was already stored (a job re-run after a crash): queued twice, the re-check is one job, and
  // its result one row.
  if (stored.confirmSlot && deps.confirmations) {
    await deps.confirmations.armConfirmation(monitorId, region, stored.confirmSlot).catch((err: Error) =>
      deps.logger.warn('re-check not queued; the next scheduled check of the region asks again', {
        monitorId,
        region,
        error: err.message,
      }),
    );
  }
  if (stored.opened) {
    const incidentId = stored.opened;
    deps.logger.info('incident opened', { monitorId, incidentId, reason: taken.result.reason });
    await deps
      .onIncidentOpened?.(incidentId)
      .catch((err: Error) => deps.logger.error('escalation not scheduled', { incidentId, error: err.message }));
  }
  if (stored.resolved) deps.logger.info('incident resolved', { monitorId, incidentId: stored.resolved });
}
