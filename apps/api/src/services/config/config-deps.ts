import type { CheckScheduler, Config, EscalationScheduler, Logger, PrismaClient, SsrfGuard } from '@statusvane/shared';

/** What the config verbs use (a subset of ApiDeps). */
export interface ConfigDeps {
  prisma: PrismaClient;
  config: Config;
  guard: SsrfGuard;
  scheduler: CheckScheduler;
  escalations?: EscalationScheduler | undefined;
  logger: Logger;
}
