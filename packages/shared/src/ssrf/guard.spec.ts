import { afterEach, describe, expect, it } from '@jest/globals';
import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import net from 'node:net';
import got from 'got';
import type { BlockedClass } from './address.js';
import {
  type SsrfCheckResult,
  type SsrfResolver,
  SsrfBlockedError,
  WRITE_TIME_DNS_TIMEOUT_MS,
  createSsrfGuard,
} from './guard.js';

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

const DNS: Record<string, string[]> = {
  'public.example': ['93.184.215.14', '2606:4700::1'],
  'db.example.com': ['93.184.215.15'],
  'internal.example': ['10.0.0.5'],
  'mixed.example': ['93.184.215.14', '192.168.1.1'], // one bad answer among good ones
  'rebind6.example': ['::ffff:127.0.0.1'],
  'metadata.example': ['169.254.169.254'],
  // If the guard ever asked DNS about localhost, it would get a public answer and pass.
  localhost: ['93.184.215.14'],
  'foo.localhost': ['93.184.215.14'],
};

/** Fake `dns.lookup({ all: true })` backed by a table; records which names were asked. */
function fakeResolver(table: Record<string, string[]> = DNS): SsrfResolver & { calls: string[] } {
  const calls: string[] = [];
  const fn = async (hostname: string, { family }: { family: 0 | 4 | 6 }): Promise<LookupAddress[]> => {
    calls.push(hostname);
    const answers = table[hostname];
    if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
    return answers
      .map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
      .filter((a) => family === 0 || a.family === family);
  };
  return Object.assign(fn, { calls });
}

type Expected = 'ok' | 'invalid' | 'dns' | BlockedClass;

function expectOutcome(result: SsrfCheckResult, expected: Expected): void {
  if (expected === 'ok') {
    expect(result).toMatchObject({ ok: true });
  } else if (expected === 'invalid' || expected === 'dns') {
    expect(result).toMatchObject({ ok: false, code: expected });
  } else {
    expect(result).toMatchObject({ ok: false, code: 'blocked' });
    expect(result.ok === false && result.reason).toMatch(new RegExp(`\\ban? ${expected} address`));
  }
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

/** Start a TCP/HTTP server on `host`, registered for cleanup; returns its port. */
async function listen(server: net.Server, host = '127.0.0.1'): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as net.AddressInfo).port;
}

function tcpServer(): { server: net.Server; connections: () => number } {
  let count = 0;
  const server = net.createServer((socket) => {
    count++;
    // The client may destroy its side immediately; a reset here is expected, not a failure.
    socket.on('error', () => undefined);
    socket.end('hello');
  });
  return { server, connections: () => count };
}

/** Connect and resolve with 'connected' or the socket error. */
function tryConnect(options: net.NetConnectOpts): Promise<'connected' | NodeJS.ErrnoException> {
  return new Promise((resolve) => {
    const socket = net.connect(options);
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (err) => resolve(err));
  });
}

// ---------------------------------------------------------------------------------------------
// checkUrl
// ---------------------------------------------------------------------------------------------

describe('checkUrl (no allowed CIDRs)', () => {
  const vectors: Array<[url: string, expected: Expected]> = [
    // numeric spellings of loopback
    ['http://2130706433/', 'loopback'],
    ['http://0177.0.0.1/', 'loopback'],
    ['http://0x7f.0.0.1/', 'loopback'],
    ['http://0x7f000001/', 'loopback'],
    ['http://0x7f.1/', 'loopback'],
    ['http://127.1/', 'loopback'],
    ['http://127.0.1/', 'loopback'],
    ['http://127.0.0.1./', 'loopback'],
    ['http://[::1]/', 'loopback'],
    ['http://[0:0:0:0:0:0:0:1]/', 'loopback'],
    ['http://[::ffff:127.0.0.1]/', 'loopback'],
    ['http://[::ffff:7f00:1]/', 'loopback'],
    // private / link-local / CGNAT / unspecified / multicast / broadcast / reserved
    ['http://10.1/', 'private'],
    ['http://10.0.0.1/', 'private'],
    ['http://172.16.5.4/', 'private'],
    ['http://192.168.0.1:8080/', 'private'],
    ['http://[::ffff:10.0.0.1]/', 'private'],
    ['http://[fd00::1]/', 'private'],
    ['http://169.254.169.254/latest/meta-data/', 'linkLocal'],
    ['http://[64:ff9b::a9fe:a9fe]/', 'linkLocal'],
    ['http://[fe80::1]/', 'linkLocal'],
    ['http://100.64.0.1/', 'carrierGradeNat'],
    ['http://0.0.0.0/', 'unspecified'],
    ['http://0/', 'unspecified'],
    ['http://[::]/', 'unspecified'],
    ['http://224.0.0.1/', 'multicast'],
    ['http://[ff02::1]/', 'multicast'],
    ['http://255.255.255.255/', 'broadcast'],
    ['http://192.0.2.10/', 'reserved'],
    ['http://[2001:db8::1]/', 'reserved'],
    ['http://[2002:7f00:1::]/', 'loopback'], // 6to4 wrapping 127.0.0.1
    // localhost names: refused without DNS
    ['http://localhost/', 'loopback'],
    ['http://LOCALHOST:8080/', 'loopback'],
    ['http://localhost./', 'loopback'],
    ['http://foo.localhost/', 'loopback'],
    // names resolved through the injected resolver
    ['http://internal.example/', 'private'],
    ['http://mixed.example/', 'private'],
    ['http://rebind6.example/', 'loopback'],
    ['http://metadata.example/', 'linkLocal'],
    ['http://nxdomain.example/', 'dns'],
    // public
    ['http://93.184.215.14/', 'ok'],
    ['https://[2606:4700::1]/', 'ok'],
    ['https://public.example/path?q=1#x', 'ok'],
    ['HTTPS://PUBLIC.EXAMPLE.:8443/', 'ok'],
    // malformed or forbidden URLs
    ['ftp://93.184.215.14/', 'invalid'],
    ['file:///etc/passwd', 'invalid'],
    ['gopher://public.example:70/', 'invalid'],
    ['javascript:alert(1)', 'invalid'],
    ['http://user:pass@93.184.215.14/', 'invalid'],
    ['http://user@public.example/', 'invalid'],
    ['http://:secret@public.example/', 'invalid'],
    ['http://93.184.215.14:0/', 'invalid'],
    ['http://93.184.215.14:70000/', 'invalid'],
    ['http://256.0.0.1/', 'invalid'],
    ['http://[fe80::1%25eth0]/', 'invalid'],
    ['not a url', 'invalid'],
    ['/relative/path', 'invalid'],
  ];

  it.each(vectors)('%s -> %s', async (url, expected) => {
    const guard = createSsrfGuard({ lookup: fakeResolver() });
    expectOutcome(await guard.checkUrl(url), expected);
  });

  it('returns the resolved addresses, host and effective port', async () => {
    const guard = createSsrfGuard({ lookup: fakeResolver() });
    await expect(guard.checkUrl('https://Public.Example/')).resolves.toEqual({
      ok: true,
      host: 'public.example',
      port: 443,
      addresses: ['93.184.215.14', '2606:4700::1'],
    });
    await expect(guard.checkUrl('http://0x5db8d70e:8080/')).resolves.toEqual({
      ok: true,
      host: '93.184.215.14',
      port: 8080,
      addresses: ['93.184.215.14'],
    });
  });

  it('names the offending address when one of several answers is blocked', async () => {
    const guard = createSsrfGuard({ lookup: fakeResolver() });
    const result = await guard.checkUrl('http://mixed.example/');
    expect(result).toEqual({
      ok: false,
      code: 'blocked',
      reason: 'Refusing mixed.example: it resolves to a refused address: 192.168.1.1 is a private address',
    });
  });

  it('never asks DNS about IP literals or localhost names', async () => {
    const resolver = fakeResolver();
    const guard = createSsrfGuard({ lookup: resolver });
    for (const url of [
      'http://localhost/',
      'http://foo.localhost/',
      'http://localhost./',
      'http://127.1/',
      'http://[::1]/',
      'http://93.184.215.14/',
    ]) {
      await guard.checkUrl(url);
    }
    expect(resolver.calls).toEqual([]);
  });
});

describe('ALLOWED_TARGET_CIDRS escape hatch', () => {
  const vectors: Array<[allowed: string, url: string, expected: Expected]> = [
    ['127.0.0.0/8', 'http://127.0.0.1:8080/', 'ok'],
    ['127.0.0.0/8', 'http://0x7f.1/', 'ok'],
    ['127.0.0.0/8', 'http://[::ffff:127.0.0.1]/', 'ok'],
    ['127.0.0.0/8', 'http://10.0.0.1/', 'private'],
    ['127.0.0.0/8', 'http://[::1]/', 'loopback'],
    ['10.0.0.0/8', 'http://127.0.0.1/', 'loopback'],
    ['10.0.0.0/8', 'http://internal.example/', 'ok'],
    ['10.0.0.0/8', 'http://mixed.example/', 'private'], // 192.168.1.1 is still refused
    ['192.168.0.0/16', 'http://mixed.example/', 'ok'],
    ['169.254.169.0/24', 'http://169.254.169.254/', 'ok'],
    // localhost is loopback by definition: it passes only when both loopback families are allowed
    ['127.0.0.0/8,::1/128', 'http://localhost:3000/', 'ok'],
    ['127.0.0.0/8', 'http://localhost:3000/', 'loopback'],
    // the escape hatch is about addresses only; scheme and credential rules still apply
    ['0.0.0.0/0,::/0', 'ftp://127.0.0.1/', 'invalid'],
    ['0.0.0.0/0,::/0', 'http://u:p@127.0.0.1/', 'invalid'],
  ];
  it.each(vectors)('allowed=%s %s -> %s', async (allowed, url, expected) => {
    const guard = createSsrfGuard({ allowedCidrs: allowed, lookup: fakeResolver() });
    expectOutcome(await guard.checkUrl(url), expected);
  });

  it('accepts pre-parsed CIDRs and rejects a bad list at construction', () => {
    expect(createSsrfGuard({ allowedCidrs: '127.0.0.0/8, ::1/128' }).allowedCidrs.map((c) => c.text)).toEqual([
      '127.0.0.0/8',
      '::1/128',
    ]);
    expect(() => createSsrfGuard({ allowedCidrs: '127.0.0.1/8' })).toThrow(/ALLOWED_TARGET_CIDRS.*host bits/);
  });
});

// ---------------------------------------------------------------------------------------------
// checkHostPort
// ---------------------------------------------------------------------------------------------

describe('checkHostPort', () => {
  const vectors: Array<[target: string | { host: string; port: number }, expected: Expected]> = [
    ['db.example.com:5432', 'ok'],
    ['93.184.215.14:6379', 'ok'],
    ['[2606:4700::1]:443', 'ok'],
    [{ host: 'db.example.com', port: 5432 }, 'ok'],
    [{ host: '2606:4700::1', port: 22 }, 'ok'],
    ['internal.example:5432', 'private'],
    ['127.1:6379', 'loopback'],
    ['2130706433:22', 'loopback'],
    ['[::ffff:127.0.0.1]:22', 'loopback'],
    ['[::1]:5432', 'loopback'],
    ['localhost:5432', 'loopback'],
    ['169.254.169.254:80', 'linkLocal'],
    ['db.example.com:0', 'invalid'],
    ['db.example.com:70000', 'invalid'],
    ['db.example.com', 'invalid'],
    ['::1:22', 'invalid'],
    ['db.example.com:port', 'invalid'],
    [{ host: 'db.example.com', port: 0 }, 'invalid'],
    [{ host: 'db.example.com', port: 70000 }, 'invalid'],
    [{ host: 'db.example.com', port: 1.5 }, 'invalid'],
    ['nxdomain.example:5432', 'dns'],
  ];
  it.each(vectors)('%j -> %s', async (target, expected) => {
    const guard = createSsrfGuard({ lookup: fakeResolver() });
    expectOutcome(await guard.checkHostPort(target), expected);
  });

  it('returns the parsed host and port', async () => {
    const guard = createSsrfGuard({ lookup: fakeResolver() });
    await expect(guard.checkHostPort('DB.example.com:5432')).resolves.toEqual({
      ok: true,
      host: 'db.example.com',
      port: 5432,
      addresses: ['93.184.215.15'],
    });
  });
});

describe('write-time DNS timeout', () => {
  /** A resolver that answers only when told to (or never): the slow libuv lookup the timeout guards against. */
  function slowResolver() {
    let answer: ((addresses: LookupAddress[]) => void) | undefined;
    const calls: string[] = [];
    const fn: SsrfResolver = (hostname) => {
      calls.push(hostname);
      return new Promise((resolve) => {
        answer = resolve;
      });
    };
    return Object.assign(fn, { calls, answer: (a: LookupAddress[]) => answer?.(a) });
  }

  it('defaults to 2.5 s', () => {
    expect(WRITE_TIME_DNS_TIMEOUT_MS).toBe(2500);
  });

  it('ends a write-time check whose lookup hangs with a `dns` result, like a name that does not resolve', async () => {
    const resolver = slowResolver();
    const guard = createSsrfGuard({ lookup: resolver, writeTimeLookupTimeoutMs: 50 });
    const started = Date.now();
    const [url, hostPort] = await Promise.all([
      guard.checkUrl('https://slow.example/health'),
      guard.checkHostPort('slow.example:5432'),
    ]);
    const elapsed = Date.now() - started;
    expect(resolver.calls).toEqual(['slow.example', 'slow.example']);
    for (const result of [url, hostPort]) {
      expect(result).toEqual({ ok: false, code: 'dns', reason: 'Could not resolve slow.example: ETIMEOUT' });
    }
    expect(elapsed).toBeGreaterThanOrEqual(45);
    expect(elapsed).toBeLessThan(2000);
    // A late answer changes nothing (and is not an unhandled rejection either).
    resolver.answer([{ address: '10.0.0.1', family: 4 }]);
  });

  it('still refuses an internal answer that comes in time, and IP literals never wait for DNS', async () => {
    const guard = createSsrfGuard({ lookup: fakeResolver(), writeTimeLookupTimeoutMs: 1000 });
    expectOutcome(await guard.checkUrl('http://internal.example/'), 'private');
    const hanging = slowResolver();
    const literal = createSsrfGuard({ lookup: hanging, writeTimeLookupTimeoutMs: 60_000 });
    expectOutcome(await literal.checkUrl('http://10.0.0.1/'), 'private');
    expectOutcome(await literal.checkUrl('http://93.184.215.14/'), 'ok');
    expect(hanging.calls).toEqual([]);
  });

  it("does not bound connect-time lookups, which the probe's own timeout covers", async () => {
    const resolver = slowResolver();
    const guard = createSsrfGuard({ lookup: resolver, writeTimeLookupTimeoutMs: 20 });
    const pending = guard.resolveAndCheck('slow.example');
    await new Promise((r) => setTimeout(r, 60));
    resolver.answer([{ address: '93.184.215.14', family: 4 }]);
    await expect(pending).resolves.toEqual(['93.184.215.14']);
  });
});

// ---------------------------------------------------------------------------------------------
// Connect-time: lookup, assertConnectAddress, resolveAndCheck
// ---------------------------------------------------------------------------------------------

describe('guard.lookup (dns.lookup-compatible)', () => {
  const guard = createSsrfGuard({ lookup: fakeResolver() });

  const call = (...args: unknown[]): Promise<unknown[]> =>
    new Promise((resolve) =>
      (guard.lookup as (...a: unknown[]) => void)(...args, (...result: unknown[]) => resolve(result)),
    );

  it('supports every dns.lookup calling convention', async () => {
    await expect(call('public.example')).resolves.toEqual([null, '93.184.215.14', 4]);
    await expect(call('public.example', 6)).resolves.toEqual([null, '2606:4700::1', 6]);
    await expect(call('public.example', { family: 'IPv4' })).resolves.toEqual([null, '93.184.215.14', 4]);
    await expect(call('public.example', { all: true })).resolves.toEqual([
      null,
      [
        { address: '93.184.215.14', family: 4 },
        { address: '2606:4700::1', family: 6 },
      ],
    ]);
    await expect(call('public.example', { all: true, family: 6 })).resolves.toEqual([
      null,
      [{ address: '2606:4700::1', family: 6 }],
    ]);
  });

  it('normalises numeric spellings that net passes to lookup', async () => {
    const allowing = createSsrfGuard({ allowedCidrs: '127.0.0.0/8', lookup: fakeResolver() });
    const result = await new Promise<unknown[]>((resolve) =>
      allowing.lookup('0x7f.1', { all: true }, (...r) => resolve(r)),
    );
    expect(result).toEqual([null, [{ address: '127.0.0.1', family: 4 }]]);
  });

  const blocked = ['mixed.example', 'internal.example', 'rebind6.example', 'localhost', '127.1', '2130706433'];
  it.each(blocked)('fails %s with ESSRF', async (hostname) => {
    const [err] = await call(hostname, { all: true });
    expect(err).toBeInstanceOf(SsrfBlockedError);
    expect(err).toMatchObject({ code: 'ESSRF', hostname });
  });

  it('passes DNS errors through unchanged', async () => {
    const [err] = await call('nxdomain.example', {});
    expect(err).toMatchObject({ code: 'ENOTFOUND' });
  });

  it('throws synchronously on a bad family, like dns.lookup', () => {
    expect(() => guard.lookup('public.example', { family: 5 }, () => undefined)).toThrow(TypeError);
  });
});

describe('assertConnectAddress / resolveAndCheck', () => {
  const guard = createSsrfGuard({ allowedCidrs: '192.168.0.0/16', lookup: fakeResolver() });

  it('checks IP literals', () => {
    expect(() => guard.assertConnectAddress('127.0.0.1')).toThrow(SsrfBlockedError);
    expect(() => guard.assertConnectAddress('::ffff:169.254.169.254')).toThrow(/linkLocal/);
    expect(() => guard.assertConnectAddress('example.com')).toThrow(/not a valid IP/);
    expect(() => guard.assertConnectAddress('192.168.1.1')).not.toThrow();
    expect(() => guard.assertConnectAddress('93.184.215.14')).not.toThrow();
  });

  it('handles literals and names', async () => {
    await expect(guard.resolveAndCheck('[::1]')).rejects.toMatchObject({ code: 'ESSRF' });
    await expect(guard.resolveAndCheck('0x7f.1')).rejects.toMatchObject({ code: 'ESSRF' });
    await expect(guard.resolveAndCheck('internal.example')).rejects.toMatchObject({
      code: 'ESSRF',
      address: '10.0.0.5',
    });
    await expect(guard.resolveAndCheck('mixed.example')).resolves.toEqual(['93.184.215.14', '192.168.1.1']);
    await expect(guard.resolveAndCheck('nxdomain.example')).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });
});

describe('connect-time enforcement with real sockets', () => {
  const resolver = (): SsrfResolver => fakeResolver({ 'internal.test': ['127.0.0.1'] });

  it.each([true, false])(
    'net.connect via a hostname is refused before connecting (autoSelectFamily=%s)',
    async (autoSelectFamily) => {
      const { server, connections } = tcpServer();
      const port = await listen(server);
      const guard = createSsrfGuard({ lookup: resolver() });

      const outcome = await tryConnect({ host: 'internal.test', port, lookup: guard.lookup, autoSelectFamily });
      expect(outcome).toBeInstanceOf(SsrfBlockedError);
      expect(outcome).toMatchObject({ code: 'ESSRF', address: '127.0.0.1' });
      expect(connections()).toBe(0);
    },
  );

  it.each([true, false])(
    'net.connect passes when 127.0.0.0/8 is allowed (autoSelectFamily=%s)',
    async (autoSelectFamily) => {
      const { server, connections } = tcpServer();
      const port = await listen(server);
      const guard = createSsrfGuard({ allowedCidrs: '127.0.0.0/8', lookup: resolver() });

      const data = await new Promise<string>((resolve, reject) => {
        const socket = net.connect({ host: 'internal.test', port, lookup: guard.lookup, autoSelectFamily });
        let buf = '';
        socket.setEncoding('utf8');
        socket.on('data', (chunk: string) => (buf += chunk));
        socket.on('end', () => resolve(buf));
        socket.on('error', reject);
      });
      expect(data).toBe('hello');
      expect(connections()).toBe(1);
    },
  );

  it('net skips lookup for IP literals, which is why literals need assertConnectAddress', async () => {
    const { server, connections } = tcpServer();
    const port = await listen(server);
    const guard = createSsrfGuard({ lookup: resolver() });
    let lookupCalls = 0;
    const spy: typeof guard.lookup = ((...args: Parameters<typeof guard.lookup>) => {
      lookupCalls++;
      return (guard.lookup as (...a: unknown[]) => void)(...args);
    }) as typeof guard.lookup;

    // Documented Node behaviour: the guard's lookup is not consulted for a literal...
    expect(await tryConnect({ host: '127.0.0.1', port, lookup: spy })).toBe('connected');
    expect(lookupCalls).toBe(0);
    // ...so connect-time code must check literals itself.
    expect(() => guard.assertConnectAddress('127.0.0.1')).toThrow(SsrfBlockedError);
    await expect(guard.resolveAndCheck('127.0.0.1')).rejects.toMatchObject({ code: 'ESSRF' });
    // Legacy spellings are not literals to net, so they do reach (and are refused by) lookup.
    expect(await tryConnect({ host: '127.1', port, lookup: spy })).toMatchObject({ code: 'ESSRF' });
    expect(lookupCalls).toBe(1);
    expect(connections()).toBe(1);
  });

  it('got with dnsLookup re-checks every redirect hop', async () => {
    // Hop 1 is on an allowed address and redirects to a name that resolves to a refused one.
    let internalHits = 0;
    const internal = http.createServer((_req, res) => {
      internalHits++;
      res.end('secret');
    });
    const internalPort = await listen(internal, '127.0.0.2');
    const front = http.createServer((_req, res) => {
      res.writeHead(302, { location: `http://internal.test:${internalPort}/` }).end();
    });
    const frontPort = await listen(front, '127.0.0.1');

    const guard = createSsrfGuard({
      allowedCidrs: '127.0.0.1/32',
      lookup: fakeResolver({ 'front.test': ['127.0.0.1'], 'internal.test': ['127.0.0.2'] }),
    });
    const agent = new http.Agent({ keepAlive: false });
    cleanups.push(async () => agent.destroy());

    await expect(
      got(`http://front.test:${frontPort}/`, { dnsLookup: guard.lookup, agent: { http: agent }, retry: { limit: 0 } }),
    ).rejects.toMatchObject({ code: 'ESSRF' });
    expect(internalHits).toBe(0);

    // Sanity check: the same hop passes once its address is allowed.
    const permissive = createSsrfGuard({
      allowedCidrs: '127.0.0.0/8',
      lookup: fakeResolver({ 'front.test': ['127.0.0.1'], 'internal.test': ['127.0.0.2'] }),
    });
    const body = await got(`http://front.test:${frontPort}/`, {
      dnsLookup: permissive.lookup,
      agent: { http: agent },
      retry: { limit: 0 },
    }).text();
    expect(body).toBe('secret');
    expect(internalHits).toBe(1);
  });
});
