import type {
  CheckScheduler,
  Config,
  EscalationScheduler,
  Logger,
  PrismaClient,
  RedisClient,
  SsrfGuard,
  SubscriberQueue,
  Tracing,
} from '@statusvane/shared';
import type { ApiMetrics } from './metrics/api-metrics.js';
import type { ApiLifecycle } from './shutdown.js';

/** Everything the API needs from the outside world, built once in main.ts (or by a test). */
export interface ApiDeps {
  config: Config;
  prisma: PrismaClient;
  redis: RedisClient;
  logger: Logger;
  scheduler: CheckScheduler;
  guard: SsrfGuard;
  /** Prometheus metrics; createApp builds a private set when omitted. */
  metrics?: ApiMetrics;
  /** The escalation queue, to remove an acknowledged or resolved incident's pending step jobs (best effort). */
  escalations?: EscalationScheduler;
  /** Shutdown state: while draining, `/readyz` answers 503. Absent (tests): never draining. */
  lifecycle?: ApiLifecycle;
  /** Status page subscriber deliveries (confirmation mails); built on first use over `redis` when omitted. */
  subscribers?: SubscriberQueue;
  /** OpenTelemetry traces (startTracing): a span per request; null or absent when not configured. */
  tracing?: Tracing | null;
  /** The clock every request reads its `ctx.now` from; tests move it to stand on a boundary. Default: the system's. */
  clock?: () => Date;
}
