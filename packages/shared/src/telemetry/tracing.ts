/**
 * OpenTelemetry traces over OTLP/HTTP (spec section 11), only when configured: with OTEL_EXPORTER_OTLP_ENDPOINT (or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) unset, nothing of the SDK is loaded (the imports below are types, erased, and
 * the SDK is imported dynamically by startTracing) and the hooks in the request and check paths cost one null test.
 *
 * - The exporter reads the standard variables itself (endpoint, OTEL_EXPORTER_OTLP_HEADERS, timeouts), the batch
 *   processor OTEL_BSP_*; the resource is `service.name` (OTEL_SERVICE_NAME, else statusvane-api / statusvane-worker)
 *   plus OTEL_RESOURCE_ATTRIBUTES.
 * - No global registration (no context manager, no global provider): spans are parented explicitly, so a process (or
 *   a test) can start and stop tracing without touching anything else that uses @opentelemetry/api.
 */
import { Buffer } from 'node:buffer';
import { randomBytes } from 'node:crypto';
import type * as OtelApi from '@opentelemetry/api';
import type { Attributes, Span, SpanContext, Tracer } from '@opentelemetry/api';

/** A span as the apps hold one (they do not depend on @opentelemetry/api themselves). */
export type TraceSpan = Span;

export interface Tracing {
  readonly tracer: Tracer;
  /** The API's SpanKind and SpanStatusCode, and `trace.setSpan` / `context`, without importing the API eagerly. */
  readonly api: typeof OtelApi;
  /** Exports what is buffered (tests; shutdown). */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** Whether the environment asks for traces. */
export function tracingConfigured(env: NodeJS.ProcessEnv): boolean {
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/** Starts exporting spans when the environment asks for it; null (and nothing loaded) otherwise. */
export async function startTracing(opts: { service: string; env?: NodeJS.ProcessEnv }): Promise<Tracing | null> {
  const env = opts.env ?? process.env;
  if (!tracingConfigured(env)) return null;
  const [api, base, resources, exporter] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/exporter-trace-otlp-http'),
  ]);
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ 'service.name': opts.service }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  // The traces endpoint as the OTLP/HTTP exporter spec derives it (given here so that `env` is the one read); the
  // exporter reads the other OTEL_EXPORTER_OTLP_* variables itself.
  const url =
    env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() ||
    `${env.OTEL_EXPORTER_OTLP_ENDPOINT!.trim().replace(/\/+$/, '')}/v1/traces`;
  const provider = new base.BasicTracerProvider({
    resource,
    spanProcessors: [new base.BatchSpanProcessor(new exporter.OTLPTraceExporter({ url }))],
  });
  return {
    tracer: provider.getTracer('statusvane'),
    api,
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

/**
 * Runs `fn` inside a span named `name` (a child of `parent` when given), ending it when `fn` settles; an exception
 * marks the span as an error and is rethrown. Without tracing, `fn(null)`.
 */
export async function inSpan<T>(
  tracing: Tracing | null | undefined,
  name: string,
  opts: { attributes?: Attributes; parent?: Span | null; kind?: 'server' | 'internal' | 'client' },
  fn: (span: Span | null) => Promise<T>,
): Promise<T> {
  if (!tracing) return fn(null);
  const { api } = tracing;
  const ctx = opts.parent ? api.trace.setSpan(api.context.active(), opts.parent) : api.ROOT_CONTEXT;
  const kind = { server: api.SpanKind.SERVER, client: api.SpanKind.CLIENT, internal: api.SpanKind.INTERNAL }[
    opts.kind ?? 'internal'
  ];
  const span = tracing.tracer.startSpan(
    name,
    { kind, ...(opts.attributes ? { attributes: opts.attributes } : {}) },
    ctx,
  );
  try {
    return await fn(span);
  } catch (err) {
    span.recordException(err as Error);
    span.setStatus({ code: api.SpanStatusCode.ERROR, message: (err as Error).message });
    throw err;
  } finally {
    span.end();
  }
}

/** A W3C trace context (https://www.w3.org/TR/trace-context/): `traceparent` and the trace id it carries. */
export interface TraceParent {
  header: string;
  traceId: string;
}

/**
 * The `traceparent` a check sends: the check span's context when tracing (so the target's own trace joins ours),
 * else a fresh random trace (sampled: the target's tracing decides for itself whether to keep it, and the stored
 * traceId finds it there).
 */
export function traceParentOf(span: Span | null): TraceParent {
  const sc: SpanContext | null = span ? span.spanContext() : null;
  if (sc && /^[0-9a-f]{32}$/.test(sc.traceId) && !/^0+$/.test(sc.traceId)) {
    const flags = (sc.traceFlags & 1).toString(16).padStart(2, '0');
    return { header: `00-${sc.traceId}-${sc.spanId}-${flags}`, traceId: sc.traceId };
  }
  const traceId = randomHex(16);
  return { header: `00-${traceId}-${randomHex(8)}-01`, traceId };
}

/**
 * Random bytes as hex, cut from a pool filled RANDOM_POOL_BYTES at a time: every http check without a span of its own
 * sends a fresh traceparent, and two `randomBytes` calls a check (each a call into OpenSSL) cost more than the hex.
 */
const RANDOM_POOL_BYTES = 4096;
let randomPool = Buffer.alloc(0);
let randomPoolAt = 0;
function randomHex(bytes: number): string {
  if (randomPoolAt + bytes > randomPool.length) {
    randomPool = randomBytes(RANDOM_POOL_BYTES);
    randomPoolAt = 0;
  }
  randomPoolAt += bytes;
  return randomPool.toString('hex', randomPoolAt - bytes, randomPoolAt);
}
