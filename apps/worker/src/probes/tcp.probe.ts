/**
 * TCP probe: can a connection to host:port be opened within the timeout? No database, no queue.
 *
 * Decisions:
 * - Resolution happens once, through the SSRF guard (`resolveAndCheck`: every address must be
 *   allowed), and the socket then dials the checked IP address itself — never the name — so a second
 *   DNS answer cannot rebind the connection to another address. Each address is also re-asserted
 *   with `assertConnectAddress` just before dialling.
 * - `dnsMs` is the guard's resolution time for names; null for IP literals in any spelling (`127.1`,
 *   `[::1]` ...: those are normalised without DNS). `connectMs` runs from the first dial to the
 *   established connection. `responseMs` is the total (DNS + connect), rounded; null when no
 *   connection was made. tlsMs, waitingMs and statusCode are always null.
 * - Several addresses: tried in the resolver's order, one at a time, within the same overall
 *   deadline; the first that connects wins, otherwise the last error is the reason. (No parallel
 *   "happy eyeballs": a black-holed first address can use up the whole timeout.)
 * - `timeoutMs` bounds the whole check, DNS included. Reason `timeout`.
 * - Once connected the socket is closed immediately; no bytes are sent or read.
 * - Latency rules as for http: total > latencyThresholdMs -> down, else > degradedAfterMs -> degraded.
 * - `address`: the IP address that accepted the connection, or, when none did, the last one dialled (refused or
 *   timed out); null when none was dialled (the name did not resolve, or every address was refused by the guard).
 * - Host given as `[v6]` or bare; port must be 1..65535, otherwise `invalid_target`.
 */
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import { type SsrfGuard, isValidPort, normaliseHost, withTimeout, reasonForError } from '@statusvane/shared';
import { applyLatencyRules, downResult, ProbeTimeoutError, truncateReason } from './result.js';
import type { ProbeResult } from './types.js';

export interface TcpProbeInput {
  host: string;
  port: number;
  timeoutMs: number;
  degradedAfterMs: number | null;
  latencyThresholdMs: number | null;
}

export interface TcpProbeOptions {
  guard: SsrfGuard;
}

export interface TcpProbe {
  probe(input: TcpProbeInput): Promise<ProbeResult>;
}

/** Open one connection to an IP address; resolve once established (and closed again). */
function connectOnce(address: string, port: number, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: address, port });
    const timer = setTimeout(
      () => {
        socket.destroy();
        reject(new ProbeTimeoutError(ms, 'TCP connect'));
      },
      Math.max(0, ms),
    );
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.destroy();
      resolve();
    });
    socket.once('error', (err) => {
      clearTimeout(timer);
      socket.destroy();
      reject(err);
    });
  });
}

export function createTcpProbe(options: TcpProbeOptions): TcpProbe {
  const { guard } = options;

  async function probe(input: TcpProbeInput): Promise<ProbeResult> {
    if (!isValidPort(input.port)) return downResult(`invalid_target: port must be 1-65535, got ${input.port}`);
    let literal: boolean;
    try {
      literal = normaliseHost(input.host).kind === 'ip';
    } catch (err) {
      return downResult(`invalid_target: ${(err as Error).message}`);
    }

    const started = performance.now();
    const remaining = () => input.timeoutMs - (performance.now() - started);

    let addresses: string[];
    try {
      addresses = await withTimeout(
        guard.resolveAndCheck(input.host),
        remaining(),
        () => new ProbeTimeoutError(input.timeoutMs, 'TCP check'),
      );
    } catch (err) {
      return downResult(reasonForError(err));
    }
    const dnsMs = literal ? null : Math.round(performance.now() - started);

    const connectStarted = performance.now();
    let lastError: unknown = new ProbeTimeoutError(input.timeoutMs, 'TCP check');
    let connected = false;
    let dialled: string | null = null;
    for (const address of addresses) {
      const left = remaining();
      if (left <= 0) {
        lastError = new ProbeTimeoutError(input.timeoutMs, 'TCP check');
        break;
      }
      try {
        guard.assertConnectAddress(address);
        dialled = address;
        await connectOnce(address, input.port, left);
        connected = true;
        break;
      } catch (err) {
        lastError = err;
        if (err instanceof ProbeTimeoutError) break;
      }
    }
    const now = performance.now();
    if (!connected) {
      return downResult(reasonForError(lastError), {
        phases: { dnsMs, connectMs: null, tlsMs: null, waitingMs: null },
        address: dialled,
      });
    }

    const responseMs = Math.round(now - started);
    const latency = applyLatencyRules(responseMs, input);
    return {
      outcome: latency.outcome,
      reason: latency.reason === null ? null : truncateReason(latency.reason),
      responseMs,
      statusCode: null,
      phases: { dnsMs, connectMs: Math.round(now - connectStarted), tlsMs: null, waitingMs: null },
      address: dialled,
    };
  }

  return { probe };
}
