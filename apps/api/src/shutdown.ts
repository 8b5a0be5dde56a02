import type { Server, ServerResponse } from 'node:http';
import net, { type Socket } from 'node:net';
import type { Logger } from '@statusvane/shared';

/** Whether the API is on its way out: `/readyz` answers 503 from the moment a shutdown starts. */
export interface ApiLifecycle {
  readonly draining: boolean;
}

/**
 * How long a connection accepted before the listener closed has to start its request once it has closed. A balancer
 * writes its request as soon as its connection is accepted, and Node reads a connection accepted in one turn of the
 * event loop only in the next: a connection closed with the listener would be reset with its request unread (nginx
 * answers a PATCH so 502).
 */
export const FIRST_REQUEST_GRACE_MS = 1000;

/**
 * A rolling deploy's end of one API process (docs/reliability.md, "Deploy"). `track(server)` once the server exists,
 * then `drain(drainMs)` on SIGTERM:
 *
 * 1. at once, `/readyz` answers 503, so load balancers and Kubernetes take the process out of rotation;
 * 2. for `drainMs` it keeps accepting and serving as before (a balancer that has not noticed yet still gets answers),
 *    each answer closing its keep-alive connection so that clients reconnect to another replica;
 * 3. then it stops accepting, answers every request it has started on and every one that starts within
 *    FIRST_REQUEST_GRACE_MS on a connection it had accepted, closes the connections that have not started one by then,
 *    and the idle ones as they go idle.
 *
 * Resolves once the listener is closed and every connection is gone; the caller then closes the pools the requests
 * used (closing them earlier answered requests in flight 500: test/resilience/deploy.test.ts).
 */
export function createLifecycle(logger: Logger): ApiLifecycle & {
  track(server: Server): void;
  drain(drainMs: number): Promise<void>;
} {
  let draining = false;
  let tracked: Server | null = null;
  // Connections that have not started a request yet. Node counts them neither idle (`closeIdleConnections`) nor done.
  const unstarted = new Set<Socket>();
  return {
    get draining() {
      return draining;
    },
    track(server) {
      tracked = server;
      server.on('connection', (socket: Socket) => {
        unstarted.add(socket);
        socket.once('close', () => unstarted.delete(socket));
      });
      server.prependListener('request', (req) => unstarted.delete(req.socket));
    },
    async drain(drainMs) {
      const server = tracked;
      if (!server) throw new Error('drain() before track(server)');
      if (draining) return;
      draining = true;
      // Keep-alive connections: each answer from now on closes its connection. Before the app's listener: one that
      // answers synchronously has sent its headers by the time a later listener runs (setHeader would throw).
      server.prependListener('request', (_req, res: ServerResponse) => res.setHeader('Connection', 'close'));
      if (drainMs > 0) {
        logger.info(`draining: /readyz answers 503; serving for ${drainMs / 1000} s more`);
        await new Promise((r) => setTimeout(r, drainMs));
      }
      // Stop accepting: net's close, not http's, which closes the idle connections in the same turn (a keep-alive one
      // whose next request is still unread among them). Connections still in the kernel's accept queue are reset by
      // the kernel, their requests unread: a balancer may send those again (docs/reliability.md, "Deploy").
      const closed = new Promise<void>((resolve) => net.Server.prototype.close.call(server, () => resolve()));
      let grace: NodeJS.Timeout | undefined;
      await Promise.race([closed, new Promise((r) => (grace = setTimeout(r, FIRST_REQUEST_GRACE_MS)))]);
      clearTimeout(grace);
      for (const socket of unstarted) socket.destroy();
      const idle = setInterval(() => server.closeIdleConnections(), 100);
      server.closeIdleConnections();
      await closed;
      clearInterval(idle);
    },
  };
}
