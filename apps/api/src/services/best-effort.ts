import type { Logger } from '@statusvane/shared';

/**
 * The one way a service lets a best-effort step fail, typically a Redis call after its write committed:
 * `.catch(logFailure(deps.logger, 'what failed', { monitorId }, 'what repairs it'))`. The write stands and the answer
 * goes out; the failure is one warning naming what failed (the message and the ids in `fields`), why (the error's
 * message) and, where the failure leaves something visibly out of line, what brings it back (`recovery`). `fields`
 * hold ids and names only, never a secret.
 */
export const logFailure =
  (logger: Pick<Logger, 'warn'>, what: string, fields: Record<string, string | number>, recovery?: string) =>
  (err: unknown): void => {
    logger.warn(what, {
      ...fields,
      error: err instanceof Error ? err.message : String(err),
      ...(recovery === undefined ? {} : { recovery }),
    });
  };
