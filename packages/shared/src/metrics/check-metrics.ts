import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

export interface CheckMetrics {
  /** Labels: type (http, tcp, heartbeat, dns, api, domain), region, result (up, degraded, down, skipped, error). */
  checks: Counter<'type' | 'region' | 'result'>;
  /** The whole check job: read the monitor, probe, store. */
  checkDuration: Histogram<'type' | 'region'>;
  /** Processing start minus the job's scheduled slot. */
  lateness: Histogram<'region'>;
  incidentsOpened: Counter<'region'>;
  /** A job that ran again for a slot already stored (a retry or a stalled job): the unique key kept one result. */
  duplicateResults: Counter<'region'>;
  /** A check job that exhausted its retries: its slot has no result. */
  resultsLost: Counter<'region'>;
  /** Scheduled slots recorded as missed (no data): skipped because the checks were more than an interval behind. */
  slotsMissed: Counter<'region'>;
  /** How late the scheduled check this worker started last was: how far behind its queue is. */
  lag: Gauge<'region'>;
}

export const CHECK_RESULTS = ['up', 'degraded', 'down', 'skipped', 'error'] as const;

/** The worker's check metrics, registered on `registry`. */
export function createCheckMetrics(registry: Registry): CheckMetrics {
  const registers = [registry];
  return {
    checks: new Counter({
      name: 'statusvane_checks_total',
      help: 'Check jobs processed, by monitor type, region and result',
      labelNames: ['type', 'region', 'result'],
      registers,
    }),
    checkDuration: new Histogram({
      name: 'statusvane_check_duration_seconds',
      help: 'Duration of a check job (read the monitor, probe, store the result)',
      labelNames: ['type', 'region'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    lateness: new Histogram({
      name: 'statusvane_check_lateness_seconds',
      help: 'Start of a check job minus its scheduled slot',
      labelNames: ['region'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      registers,
    }),
    incidentsOpened: new Counter({
      name: 'statusvane_incidents_opened_total',
      help: 'Incidents opened by check results',
      labelNames: ['region'],
      registers,
    }),
    duplicateResults: new Counter({
      name: 'statusvane_check_results_duplicate_total',
      help: 'Check jobs whose (monitor, region, slot) result was already stored; nothing was written',
      labelNames: ['region'],
      registers,
    }),
    resultsLost: new Counter({
      name: 'statusvane_check_results_lost_total',
      help: 'Check jobs that failed after their last attempt: the slot has no result',
      labelNames: ['region'],
      registers,
    }),
    slotsMissed: new Counter({
      name: 'statusvane_check_slots_missed_total',
      help: 'Scheduled slots recorded as missed (no data): BullMQ skipped them because the checks were an interval behind',
      labelNames: ['region'],
      registers,
    }),
    lag: new Gauge({
      name: 'statusvane_check_lag_seconds',
      help: 'Start minus slot of the last scheduled check this worker started: how far behind the queue is',
      labelNames: ['region'],
      registers,
    }),
  };
}
