/**
 * A TCP proxy that a test can cut and restore: stands between the app and the shared PostgreSQL so a suite can take
 * "the database" away from its processes without stopping the server everyone else uses.
 *
 * cut('blackhole'): every open connection is destroyed (as when the server restarts or fails over) and new ones are
 *   accepted but never answered (a partition: the client's connect timeout is what saves it).
 * cut('refuse'): open connections destroyed, new ones closed at once (the server process is down).
 * restore(): back to forwarding; connections held by a blackhole are dropped.
 */
import net from 'node:net';

export type CutMode = 'blackhole' | 'refuse';

export interface TcpProxy {
  readonly port: number;
  /** Connections accepted since start, whatever happened to them. */
  accepted(): number;
  /** Connections currently forwarded. */
  open(): number;
  cut(mode?: CutMode): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }, listenHost = '127.0.0.1'): Promise<TcpProxy> {
  let mode: 'open' | CutMode = 'open';
  let accepted = 0;
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();
  const held = new Set<net.Socket>();

  const server = net.createServer((client) => {
    accepted++;
    client.on('error', () => undefined);
    if (mode === 'refuse') {
      client.destroy();
      return;
    }
    if (mode === 'blackhole') {
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
    cut(m: CutMode = 'blackhole') {
      mode = m;
      for (const { client, upstream } of [...pairs]) {
        client.destroy();
        upstream.destroy();
      }
      pairs.clear();
    },
    restore() {
      mode = 'open';
      for (const s of held) s.destroy();
      held.clear();
    },
    async close() {
      mode = 'refuse';
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream.destroy();
      }
      for (const s of held) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
