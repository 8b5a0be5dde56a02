import { inSpan, type TraceSpan, type Tracing } from '@statusvane/shared';
import type { CheckOutcome } from '../checks/run-check.js';

/**
 * One span per check job (`check`), whatever the monitor's type, with what a trace backend groups and filters on:
 * `statusvane.monitor.id`, `statusvane.monitor.type`, `statusvane.region`, `statusvane.check.outcome` (up, degraded,
 * down, or skipped), `statusvane.check.reason` (the reason's code, before any `:` detail) and, for http checks,
 * `statusvane.check.trace_id` when the traceparent sent is not this span's own. An api check adds a child span per step
 * run (`api step`), laid end to end from the check's start with each step's measured time: the probe runs the steps
 * in order, and their results carry their durations. Without tracing, `run(null)`.
 */
export function traceCheck(
  tracing: Tracing | null | undefined,
  job: { monitorId: string; region: string; slot: Date },
  run: (span: TraceSpan | null) => Promise<CheckOutcome>,
): Promise<CheckOutcome> {
  // Without tracing, nothing to describe: no attributes formatted for a span that is never made.
  if (!tracing) return run(null);
  const startedAt = Date.now();
  return inSpan(
    tracing,
    'check',
    {
      attributes: {
        'statusvane.monitor.id': job.monitorId,
        'statusvane.region': job.region,
        'statusvane.check.slot': job.slot.toISOString(),
      },
    },
    async (span) => {
      const outcome = await run(span);
      if (span) describeOutcome(tracing, span, job.monitorId, outcome, startedAt);
      return outcome;
    },
  );
}

function describeOutcome(
  tracing: Tracing,
  span: TraceSpan,
  monitorId: string,
  outcome: CheckOutcome,
  startedAt: number,
): void {
  if ('skipped' in outcome) {
    span.setAttributes({ 'statusvane.check.outcome': 'skipped', 'statusvane.check.skipped': outcome.skipped });
    return;
  }
  const { result, type } = outcome;
  span.setAttributes({
    'statusvane.monitor.type': type,
    'statusvane.check.outcome': result.outcome,
    ...(result.reason ? { 'statusvane.check.reason': result.reason.split(':')[0]! } : {}),
    ...(result.statusCode !== null ? { 'http.response.status_code': result.statusCode } : {}),
    ...(result.traceId && result.traceId !== span.spanContext().traceId
      ? { 'statusvane.check.trace_id': result.traceId }
      : {}),
  });
  if (result.outcome === 'down')
    span.setStatus({ code: tracing.api.SpanStatusCode.ERROR, message: result.reason ?? '' });
  let at = startedAt;
  const parent = tracing.api.trace.setSpan(tracing.api.ROOT_CONTEXT, span);
  for (const step of result.steps ?? []) {
    if (step.outcome === 'skipped') continue;
    const ms = step.responseMs ?? 0;
    const attributes = {
      'statusvane.monitor.id': monitorId,
      'statusvane.step.name': step.name,
      'statusvane.step.outcome': step.outcome,
      ...(step.statusCode !== null ? { 'http.response.status_code': step.statusCode } : {}),
      ...(step.reason ? { 'statusvane.step.reason': step.reason.split(':')[0]! } : {}),
    };
    const child = tracing.tracer.startSpan('api step', { startTime: at, attributes }, parent);
    if (step.outcome === 'failed') child.setStatus({ code: tracing.api.SpanStatusCode.ERROR });
    at += ms;
    child.end(at);
  }
}
