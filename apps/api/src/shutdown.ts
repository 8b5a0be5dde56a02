import type { Server, ServerResponse } from 'node:http';
import type { Logger } from '@statusvane/shared';

/** Whether the API is on its way out: `/readyz` answers 503 from the moment a shutdown starts. */
export interface ApiLifecycle {
  readonly draining: boolean;
}

/**
 * A rolling deploy's end of one API process (docs/reliability.md, "Deploy"), `drain(server, drainMs)`:
 *
 * 1. at once, `/readyz` answers 503, so load balancers and Kubernetes take the process out of rotation;
 * 2. for `drainMs` it keeps accepting and serving as before (a balancer that has not noticed yet still gets answers),
 *    each answer closing its keep-alive connection so that clients reconnect to another replica;
 * 3. then it stops accepting, answers every request it has started on, and closes idle connections as they go idle.
 *
 * Resolves once the listener is closed and every connection is gone; the caller then closes the pools the requests
 * used (closing them earlier answered requests in flight 500: test/resilience/deploy.test.ts).
 */
export function createLifecycle(
  logger: Logger,
): ApiLifecycle & { drain(server: Server, drainMs: number): Promise<void> } {
  let draining = false;
  return {
    get draining() {
      return draining;
    },
    async drain(server, drainMs) {
      if (draining) return;
      draining = true;
      // Keep-alive connections: each answer from now on closes its connection. Before the app's listener: one that
      // answers synchronously has sent its headers by the time a later listener runs (setHeader would throw).
      server.prependListener('request', (_req, res: ServerResponse) => res.setHeader('Connection', 'close'));
      if (drainMs > 0) {
        logger.info(`draining: /readyz answers 503; serving for ${drainMs / 1000} s more`);
        await new Promise((r) => setTimeout(r, drainMs));
      }
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      const idle = setInterval(() => server.closeIdleConnections(), 100);
      server.closeIdleConnections();
      await closed;
      clearInterval(idle);
    },
  };
}
