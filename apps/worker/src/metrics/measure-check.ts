import type { CheckOutcome, CheckRunnerDeps } from '../checks/run-check.js';
import type { WorkerMetrics } from './worker-metrics.js';

type MonitorType = 'http' | 'tcp' | 'heartbeat' | 'dns' | 'api' | 'domain' | 'unknown';

/**
 * Runs one check with its metrics: lateness (start minus slot, first attempts only: a retry is late by its backoff
 * on purpose), duration, result by monitor type, incidents opened, duplicate slots and slots recorded as missed. A check that throws has no
 * outcome: its type is learnt from the probe it called (wrapped for this job only), so the check code itself stays
 * unaware of metrics.
 */
export async function measureCheck(
  metrics: WorkerMetrics,
  deps: CheckRunnerDeps,
  job: { region: string; slot: Date; firstAttempt: boolean },
  run: (deps: CheckRunnerDeps) => Promise<CheckOutcome>,
): Promise<CheckOutcome> {
  const startedAt = Date.now();
  if (job.firstAttempt)
    metrics.lateness.observe({ region: job.region }, Math.max(0, startedAt - job.slot.getTime()) / 1000);
  let type: MonitorType | null = null;
  // The deps with their probes wrapped, the rest read through the prototype: a spread of the deps (a score of fields)
  // per check was a copy the check kept alive to its end.
  const probing: CheckRunnerDeps = Object.create(deps) as CheckRunnerDeps;
  probing.httpProbe = {
    probe: (input) => ((type = 'http'), deps.httpProbe.probe(input)),
    exchange: (input) => deps.httpProbe.exchange(input),
  };
  probing.apiProbe = { probe: (input) => ((type = 'api'), deps.apiProbe.probe(input)) };
  probing.tcpProbe = { probe: (input) => ((type = 'tcp'), deps.tcpProbe.probe(input)) };
  probing.dnsProbe = { probe: (input) => ((type = 'dns'), deps.dnsProbe.probe(input)) };
  const lookups = deps.domainLookups;
  if (lookups) probing.domainLookups = { lookup: (domain) => ((type = 'domain'), lookups.lookup(domain)) };
  const t0 = process.hrtime.bigint();
  const done = (result: string, known: MonitorType) => {
    metrics.checks.inc({ type: known, region: job.region, result });
    metrics.checkDuration.observe({ type: known, region: job.region }, Number(process.hrtime.bigint() - t0) / 1e9);
  };
  let outcome: CheckOutcome;
  try {
    outcome = await run(probing);
  } catch (err) {
    done('error', type ?? 'unknown');
    throw err;
  }
  if ('skipped' in outcome) {
    done('skipped', outcome.skipped.startsWith('heartbeat') ? 'heartbeat' : 'unknown');
    return outcome;
  }
  // The monitor's own type: also for a check that failed before probing (config_error).
  done(outcome.result.outcome, outcome.type);
  if (!outcome.stored) metrics.duplicateResults.inc({ region: job.region });
  if (outcome.opened) metrics.incidentsOpened.inc({ region: job.region });
  if (outcome.missedSlots) metrics.slotsMissed.inc({ region: job.region }, outcome.missedSlots);
  return outcome;
}
