import type { CheckScheduler, Config, Logger, PrismaClient, SsrfGuard } from '@statusvane/shared';
import type { Redis } from 'ioredis';

/** Everything the API needs from the outside world, built once in main.ts (or by a test). */
export interface ApiDeps {
  config: Config;
  prisma: PrismaClient;
  redis: Redis;
  logger: Logger;
  scheduler: CheckScheduler;
  guard: SsrfGuard;
}
