/**
 * A TCP proxy that a test can cut and restore: stands between the app and the shared PostgreSQL so a suite can take
 * "the database" away from its processes without stopping the server everyone else uses.
 *
 * cut('blackhole'): every open connection is destroyed (as when the server restarts or fails over) and new ones are
 *   accepted but never answered (a partition: the client's connect timeout is what saves it).
 * cut('refuse'): open connections destroyed, new ones closed at once (the server process is down).
 * cut('stall'): nothing is forwarded any more, either way, but every socket stays open: open connections (the
 *   clients' pooled ones) get no answer, no FIN and no RST, and new ones are accepted and held as in 'blackhole' (a
 *   partition or a frozen server: only the clients' query and connect timeouts can end a request).
 * restore(): back to forwarding; connections held by a blackhole or stalled are dropped.
 */
import net from 'node:net';

export type CutMode = 'blackhole' | 'refuse' | 'stall';

export interface TcpProxy {
  readonly port: number;
  /** Connections accepted since start, whatever happened to them. */
  accepted(): number;
  /** Connections currently forwarded. */
  open(): number;
  /** Connections kept open without forwarding ('stall'). */
  stalled(): number;
  cut(mode?: CutMode): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(
  target: { host: string; port: number },
  listenHost = '127.0.0.1',
): Promise<TcpProxy> {
  let mode: 'open' | CutMode = 'open';
  let accepted = 0;
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();
  const held = new Set<net.Socket>();
  const stalled = new Set<{ client: net.Socket; upstream: net.Socket }>();

  const server = net.createServer((client) => {
    accepted++;
    client.on('error', () => undefined);
    if (mode === 'refuse') {
      client.destroy();
      return;
    }
    if (mode === 'blackhole' || mode === 'stall') {
      held.add(client);
      client.on('close', () => held.delete(client));
      return;
    }
    const upstream = net.connect(target.port, target.host);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    const pair = { client, upstream };
    pairs.add(pair);
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', drop);
    upstream.on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, listenHost, r));
  const { port } = server.address() as net.AddressInfo;

  return {
    port,
    accepted: () => accepted,
    open: () => pairs.size,
    stalled: () => stalled.size,
    cut(m: CutMode = 'blackhole') {
      mode = m;
      for (const pair of [...pairs]) {
        const { client, upstream } = pair;
        if (m === 'stall') {
          // Stop both directions and read nothing more; the sockets stay open (the kernel keeps acknowledging what the
          // client sends, as a live peer does), and neither side sees a close.
          client.unpipe(upstream);
          upstream.unpipe(client);
          client.pause();
          upstream.pause();
          client.removeAllListeners('close');
          upstream.removeAllListeners('close');
          stalled.add(pair);
        } else {
          client.destroy();
          upstream.destroy();
        }
      }
      pairs.clear();
    },
    restore() {
      mode = 'open';
      for (const s of held) s.destroy();
      held.clear();
      for (const { client, upstream } of stalled) {
        client.destroy();
        upstream.destroy();
      }
      stalled.clear();
    },
    async close() {
      mode = 'refuse';
      for (const { client, upstream } of [...pairs, ...stalled]) {
        client.destroy();
        upstream.destroy();
      }
      for (const s of held) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
