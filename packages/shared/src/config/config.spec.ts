import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from '@jest/globals';
import { ConfigError, parseConfig, parseEnvSubset, parseKeyring, parsePublicBaseUrl } from './config.js';

const base = {
  DATABASE_URL: 'postgresql://u:p@localhost:5432/db',
  REDIS_URL: 'redis://localhost:6379',
  ENCRYPTION_KEY: 'a'.repeat(64),
};

const tempDirs: string[] = [];
const tempDir = (prefix = 'sv-config-') => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

function problems(env: NodeJS.ProcessEnv): string[] {
  try {
    parseConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}

describe('parseConfig', () => {
  it('applies the defaults', () => {
    const c = parseConfig(base);
    expect(c.port).toBe(3000);
    expect(c.publicBaseUrl).toBe('http://localhost:3000');
    expect(c.region).toBe('local');
    expect(c.checkRegions).toEqual(['local']);
    expect(c.rateLimitPerMinute).toBe(600);
    expect(c.env).toBe('development');
    expect(c.logLevel).toBe('info');
    expect(c.encryption.current.key).toHaveLength(32);
    expect(c.encryption.current.id).toMatch(/^[0-9a-f]{12}$/);
  });

  it('parses lists and trims a trailing slash from the public URL', () => {
    const c = parseConfig({
      ...base,
      CHECK_REGIONS: ' eu-west , us-east,eu-west',
      PUBLIC_BASE_URL: 'https://status.example.com/',
      PORT: '8080',
    });
    expect(c.checkRegions).toEqual(['eu-west', 'us-east']);
    expect(c.publicBaseUrl).toBe('https://status.example.com');
    expect(c.port).toBe(8080);
  });

  it('keeps raw results and hourly rollups 35 days, daily rollups and audit events 400 by default, and refuses less than the histories need', () => {
    expect(parseConfig(base).retention).toEqual({
      checkResultsDays: 35,
      hourlyRollupsDays: 35,
      dailyRollupsDays: 400,
      auditEventsDays: 400,
    });
    const c = parseConfig({
      ...base,
      CHECK_RESULTS_RETENTION_DAYS: '2',
      HOURLY_ROLLUPS_RETENTION_DAYS: '31',
      DAILY_ROLLUPS_RETENTION_DAYS: '400',
      AUDIT_EVENTS_RETENTION_DAYS: '30',
    });
    expect(c.retention).toEqual({
      checkResultsDays: 2,
      hourlyRollupsDays: 31,
      dailyRollupsDays: 400,
      auditEventsDays: 30,
    });
    const text = problems({
      ...base,
      CHECK_RESULTS_RETENTION_DAYS: '0',
      HOURLY_ROLLUPS_RETENTION_DAYS: '30',
      DAILY_ROLLUPS_RETENTION_DAYS: '399',
      AUDIT_EVENTS_RETENTION_DAYS: '29',
    }).join('\n');
    expect(text).toMatch(/CHECK_RESULTS_RETENTION_DAYS/);
    expect(text).toMatch(/HOURLY_ROLLUPS_RETENTION_DAYS/);
    expect(text).toMatch(/DAILY_ROLLUPS_RETENTION_DAYS/);
    expect(text).toMatch(/AUDIT_EVENTS_RETENTION_DAYS/);
  });

  it('refuses `all` as a region name: it means every region in the response-time history', () => {
    expect(problems({ ...base, REGION: 'all' }).join()).toMatch(/REGION: `all` is reserved/);
    expect(problems({ ...base, CHECK_REGIONS: 'local,all' }).join()).toMatch(/CHECK_REGIONS.*`all` is reserved/);
    expect(parseConfig({ ...base, CHECK_REGIONS: 'all-eu,ball' }).checkRegions).toEqual(['all-eu', 'ball']);
  });

  it('takes a Redis Cluster from REDIS_CLUSTER_NODES, REDIS_URL then optional (its credentials only)', () => {
    const { REDIS_URL: _url, ...noUrl } = base;
    expect(parseConfig(base).redis).toEqual({ url: 'redis://localhost:6379', cluster: null });
    expect(
      parseConfig({ ...noUrl, REDIS_CLUSTER_NODES: ' 10.0.0.1:7000, redis-b.internal:7001,[::1]:7002 ' }).redis,
    ).toEqual({
      url: null,
      cluster: [
        { host: '10.0.0.1', port: 7000 },
        { host: 'redis-b.internal', port: 7001 },
        { host: '::1', port: 7002 },
      ],
    });
    expect(parseConfig({ ...base, REDIS_CLUSTER_NODES: 'a:1' }).redis).toEqual({
      url: 'redis://localhost:6379',
      cluster: [{ host: 'a', port: 1 }],
    });
    for (const bad of ['a', 'a:0', 'a:70000', 'a:1,b', '[zz]:1', ',', 'redis://a:1']) {
      expect(problems({ ...noUrl, REDIS_CLUSTER_NODES: bad }).join('\n')).toMatch(/REDIS_CLUSTER_NODES: must be/);
    }
    expect(problems(noUrl)).toEqual(['REDIS_URL: is required']);
  });

  it('lists every problem at once, readably', () => {
    const p = problems({ DATABASE_URL: 'mysql://x', PORT: 'abc', CHECK_REGIONS: 'Bad Region', LOG_LEVEL: 'loud' });
    const text = p.join('\n');
    expect(text).toMatch(/DATABASE_URL/);
    expect(text).toMatch(/REDIS_URL/);
    expect(text).toMatch(/PORT/);
    expect(text).toMatch(/CHECK_REGIONS/);
    expect(text).toMatch(/LOG_LEVEL/);
    expect(() => parseConfig({})).toThrow(ConfigError);
    expect(() => parseConfig({})).toThrow(
      /^Invalid configuration:\n {2}- DATABASE_URL: is required\n {2}- REDIS_URL: is required$/,
    );
  });

  it('treats empty and blank variables as unset (defaults apply, never 0)', () => {
    const c = parseConfig({
      ...base,
      PORT: '',
      METRICS_PORT: '',
      RATE_LIMIT_PER_MINUTE: ' ',
      WORKER_CONCURRENCY: '',
      JOB_LOCK_MS: '',
      HOUSEKEEPING_INTERVAL_MS: '',
      CHECK_REGIONS: '',
      LOG_LEVEL: '',
      REGION: '',
      PUBLIC_BASE_URL: '',
      ENCRYPTION_OLD_KEYS: '',
      TRUST_PROXY: '',
      SMTP_URL: '',
      METRICS_TOKEN: '',
    });
    expect(c.port).toBe(3000);
    expect(c.metrics.port).toBeNull();
    expect(c.rateLimitPerMinute).toBe(600);
    expect(c.workerConcurrency).toBe(200);
    expect(c.workerWarmUpChecks).toBe(3000);
    expect(c.jobLockMs).toBe(30_000);
    expect(c.housekeepingIntervalMs).toBe(30_000);
    expect(c.checkRegions).toEqual(['local']);
    expect(c.logLevel).toBe('info');
    expect(c.region).toBe('local');
    expect(c.publicBaseUrl).toBe('http://localhost:3000');
    expect(c.encryption.old).toEqual([]);
    expect(c.trustProxy).toBe(false);
    expect(c.smtp).toBeNull();
    expect(c.metrics.token).toBeNull();
    // A required variable that is empty is missing, and said so.
    expect(problems({ ...base, DATABASE_URL: '' })).toEqual(['DATABASE_URL: is required']);
  });

  it('reads numbers as decimal digits only', () => {
    expect(parseConfig({ ...base, PORT: ' 8080 ', METRICS_PORT: '0' })).toMatchObject({
      port: 8080,
      metrics: { port: 0 },
    });
    for (const bad of ['1e3', '0x50', '80.5', '-1', 'abc', '70000', '+80']) {
      expect([bad, problems({ ...base, PORT: bad }).join()]).toEqual([bad, expect.stringMatching(/^PORT: /)]);
    }
  });

  it('requires ENCRYPTION_KEY in production and validates its length', () => {
    expect(problems({ ...base, NODE_ENV: 'production', ENCRYPTION_KEY: undefined }).join()).toMatch(
      /ENCRYPTION_KEY: is required in production/,
    );
    expect(problems({ ...base, NODE_ENV: 'production', ENCRYPTION_KEY: '' }).join()).toMatch(
      /ENCRYPTION_KEY: is required in production/,
    );
    expect(problems({ ...base, ENCRYPTION_KEY: 'short' }).join()).toMatch(/ENCRYPTION_KEY/);
    expect(
      parseConfig({ ...base, ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') }).encryption.current.key,
    ).toEqual(Buffer.alloc(32, 7));
  });

  it('decodes ENCRYPTION_KEY strictly: hex, base64 or base64url of exactly 32 bytes', () => {
    const key = Buffer.from(Array.from({ length: 32 }, (_, i) => 250 - i * 7));
    for (const spelling of [
      key.toString('hex'),
      key.toString('hex').toUpperCase(),
      key.toString('base64'),
      key.toString('base64').replace(/=$/, ''),
      key.toString('base64url'),
      ` ${key.toString('base64')}\n`,
    ]) {
      expect([spelling, parseConfig({ ...base, ENCRYPTION_KEY: spelling }).encryption.current.key]).toEqual([
        spelling,
        key,
      ]);
    }
    const b64 = key.toString('base64');
    const garbage = [
      `${b64.slice(0, 20)}!${b64.slice(21)}`, // a character outside the alphabet (Node would skip it)
      `${b64.slice(0, 20)} ${b64.slice(20)}`, // inner space
      `${b64.slice(0, 42)}B=`, // stray low bits in the last character: not the encoding of any 32 bytes
      b64 + b64.slice(0, 4), // too long
      Buffer.alloc(31).toString('base64'), // 31 bytes
      Buffer.alloc(33).toString('base64'), // 33 bytes
      `${key.toString('base64url').slice(0, 10)}+${key.toString('base64url').slice(11)}`
        .replace(/[+]/, '-')
        .replace(/[A-Za-z0-9]/, '+'), // mixed alphabets
      'correct horse battery staple and more words here!!', // a password
      `${key.toString('hex').slice(0, 63)}g`,
    ];
    for (const bad of garbage) {
      expect([bad, problems({ ...base, ENCRYPTION_KEY: bad }).join()]).toEqual([
        bad,
        expect.stringMatching(/^ENCRYPTION_KEY: must be 32 bytes/),
      ]);
    }
    expect(problems({ ...base, ENCRYPTION_OLD_KEYS: `${b64},${garbage[0]}` }).join()).toMatch(/^ENCRYPTION_OLD_KEYS: /);
    expect(parseConfig({ ...base, ENCRYPTION_OLD_KEYS: ` ${b64} ,, ` }).encryption.old.map((k) => k.key)).toEqual([
      key,
    ]);
  });

  it('parses CORS_ORIGINS: empty (no CORS) by default, * alone, or origins as browsers send them', () => {
    expect(parseConfig(base).corsOrigins).toEqual([]);
    expect(parseConfig({ ...base, CORS_ORIGINS: '  ' }).corsOrigins).toEqual([]);
    expect(parseConfig({ ...base, CORS_ORIGINS: '*' }).corsOrigins).toBe('*');
    expect(
      parseConfig({ ...base, CORS_ORIGINS: 'https://dash.example.com, http://localhost:5173,https://dash.example.com' })
        .corsOrigins,
    ).toEqual(['https://dash.example.com', 'http://localhost:5173']);
    expect(problems({ ...base, CORS_ORIGINS: '*,https://a.example.com' }).join()).toMatch(
      /^CORS_ORIGINS: \* already allows every origin/,
    );
    for (const bad of [
      'https://dash.example.com/',
      'https://dash.example.com/path',
      'https://Dash.example.com',
      'https://dash.example.com:443',
      'dash.example.com',
      'ftp://dash.example.com',
      'null',
      'https://user@dash.example.com',
    ]) {
      expect([bad, problems({ ...base, CORS_ORIGINS: bad }).join()]).toEqual([
        bad,
        expect.stringMatching(/^CORS_ORIGINS: each entry must be an origin as browsers send it/),
      ]);
    }
  });

  it('parses TRUST_PROXY as Express reads it: false, a hop count, or addresses', () => {
    expect(parseConfig(base).trustProxy).toBe(false);
    expect(parseConfig({ ...base, TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(parseConfig({ ...base, TRUST_PROXY: '0' }).trustProxy).toBe(false);
    expect(parseConfig({ ...base, TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(parseConfig({ ...base, TRUST_PROXY: 'loopback, 10.0.0.0/8,192.168.1.7,fd00::/8,::1' }).trustProxy).toEqual([
      'loopback',
      '10.0.0.0/8',
      '192.168.1.7',
      'fd00::/8',
      '::1',
    ]);
    expect(parseConfig({ ...base, TRUST_PROXY: 'linklocal,uniquelocal' }).trustProxy).toEqual([
      'linklocal',
      'uniquelocal',
    ]);
    expect(problems({ ...base, TRUST_PROXY: 'true' }).join()).toMatch(
      /^TRUST_PROXY: true would let any client choose its own address/,
    );
    for (const bad of [
      'yes',
      '10.0.0.0/33',
      '10.1',
      'fd00::/129',
      '10.0.0.1/8/2',
      'loopback,nonsense',
      ',',
      '-1',
      '1.5',
    ]) {
      expect([bad, problems({ ...base, TRUST_PROXY: bad }).join()]).toEqual([
        bad,
        expect.stringMatching(/^TRUST_PROXY: must be false, a hop count/),
      ]);
    }
  });

  it('generates a development key once under DATA_DIR and reuses it', () => {
    const dir = tempDir();
    const env = { ...base, ENCRYPTION_KEY: undefined, DATA_DIR: dir };
    const first = parseConfig(env).encryption.current;
    const second = parseConfig(env).encryption.current;
    expect(second.id).toBe(first.id);
    expect(Buffer.from(readFileSync(join(dir, 'encryption.key'), 'utf8').trim(), 'base64')).toEqual(first.key);
    expect(readdirSync(dir)).toEqual(['encryption.key']);
  });

  it('refuses a corrupt or empty development key file with a readable ConfigError', () => {
    for (const content of ['not a key\n', '', '\n', Buffer.alloc(16).toString('base64')]) {
      const dir = tempDir();
      const file = join(dir, 'encryption.key');
      writeFileSync(file, content);
      const env = { ...base, ENCRYPTION_KEY: undefined, DATA_DIR: dir };
      expect(() => parseConfig(env)).toThrow(ConfigError);
      const message = problems(env).join('\n');
      expect(message).toContain(
        `ENCRYPTION_KEY: not set, and the development key in ${file} is ${content.trim() ? 'not a valid key' : 'empty'}`,
      );
      expect(message).toMatch(/delete the file to generate a new one/);
      // Never replaced behind the user's back: secrets stored with it would become unreadable.
      expect(readFileSync(file, 'utf8')).toBe(content);
    }
  });

  it('gives every process the same development key when several create it at once', async () => {
    // `npm start` starts the API and a worker together: both find no key. Child processes, each loaded and waiting,
    // are released at the same moment and race on 100 fresh directories in the same order.
    const dirs = Array.from({ length: 100 }, () => tempDir('sv-config-race-'));
    const configModule = pathToFileURL(join(import.meta.dirname, 'config.ts')).href;
    const childCode = `
      const { parseConfig } = await import(${JSON.stringify(configModule)});
      const dirs = JSON.parse(process.env.DIRS);
      process.stdout.write('ready\\n');
      process.stdin.once('data', () => {
        const out = dirs.map((dir) => {
          try {
            return parseConfig({ DATABASE_URL: 'postgresql://x', REDIS_URL: 'redis://x', DATA_DIR: dir }).encryption.current.id;
          } catch (err) {
            return 'error: ' + String(err && err.message);
          }
        });
        process.stdout.write(JSON.stringify(out) + '\\n', () => process.exit(0));
      });
    `;
    const children = Array.from({ length: 4 }, () => {
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', childCode], {
        env: { ...process.env, DIRS: JSON.stringify(dirs) },
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      let out = '';
      const ready = new Promise<void>((resolve) =>
        child.stdout.on('data', (c: Buffer) => {
          out += c.toString();
          if (out.startsWith('ready\n')) resolve();
        }),
      );
      const done = new Promise<string[]>((resolve, reject) =>
        child.on('exit', (code) =>
          code === 0
            ? resolve(JSON.parse(out.slice('ready\n'.length)) as string[])
            : reject(new Error(`child exited ${code}: ${out}`)),
        ),
      );
      return { child, ready, done };
    });
    await Promise.all(children.map((c) => c.ready));
    for (const c of children) c.child.stdin.write('go\n');
    const results = await Promise.all(children.map((c) => c.done));
    dirs.forEach((dir, i) => {
      const ids = results.map((r) => r[i]);
      const onDisk = parseConfig({ ...base, ENCRYPTION_KEY: undefined, DATA_DIR: dir }).encryption.current.id;
      expect([dir, ids]).toEqual([dir, ids.map(() => onDisk)]);
      expect(readdirSync(dir)).toEqual(['encryption.key']);
    });
  }, 30_000);

  it('parses a subset of the variables with the same rules, ignoring the others', () => {
    expect(parseEnvSubset({ ALLOWED_TARGET_CIDRS: '127.0.0.0/8', PORT: 'nonsense' }, ['ALLOWED_TARGET_CIDRS'])).toEqual(
      { ALLOWED_TARGET_CIDRS: '127.0.0.0/8' },
    );
    expect(parseEnvSubset({ ALLOWED_TARGET_CIDRS: '' }, ['ALLOWED_TARGET_CIDRS'])).toEqual({
      ALLOWED_TARGET_CIDRS: '',
    });
    expect(parseEnvSubset({ PORT: '', NODE_ENV: 'production' }, ['PORT'])).toEqual({ PORT: 3000 });
    expect(() => parseEnvSubset({ ALLOWED_TARGET_CIDRS: '10.0.0.0/99' }, ['ALLOWED_TARGET_CIDRS'])).toThrow(
      ConfigError,
    );
    expect(() => parseEnvSubset({ ALLOWED_TARGET_CIDRS: '10.0.0.0/99' }, ['ALLOWED_TARGET_CIDRS'])).toThrow(
      /^Invalid configuration:\n {2}- ALLOWED_TARGET_CIDRS: /,
    );
  });

  it('gives tools the base URL and keyring of the full configuration, without DATABASE_URL or REDIS_URL', () => {
    const dataDir = tempDir();
    for (const env of [
      { PUBLIC_BASE_URL: 'https://status.example.test/sv//', PORT: '' },
      { PUBLIC_BASE_URL: '', PORT: '8080', DATA_DIR: dataDir, ENCRYPTION_KEY: '' },
      { ENCRYPTION_OLD_KEYS: `${'b'.repeat(64)}, ${'c'.repeat(64)}` },
    ]) {
      const full = parseConfig({ ...base, ...env });
      expect([env, parsePublicBaseUrl({ ...base, ...env }), parseKeyring({ ...base, ...env })]).toEqual([
        env,
        full.publicBaseUrl,
        full.encryption,
      ]);
    }
    expect(parsePublicBaseUrl({ PUBLIC_BASE_URL: 'https://status.example.test/sv//' })).toBe(
      'https://status.example.test/sv',
    );
    expect(parsePublicBaseUrl({ PORT: '8080' })).toBe('http://localhost:8080');
    expect(() => parsePublicBaseUrl({ PORT: '0x10' })).toThrow(/^Invalid configuration:\n {2}- PORT: /);
    expect(() => parseKeyring({ NODE_ENV: 'production', DATA_DIR: dataDir })).toThrow(
      /^Invalid configuration:\n {2}- ENCRYPTION_KEY: is required in production$/,
    );
  });

  it('validates ALLOWED_TARGET_CIDRS', () => {
    expect(problems({ ...base, ALLOWED_TARGET_CIDRS: 'not-a-cidr' }).join()).toMatch(/ALLOWED_TARGET_CIDRS/);
    expect(parseConfig({ ...base, ALLOWED_TARGET_CIDRS: '127.0.0.0/8,::1/128' }).allowedTargetCidrs).toBe(
      '127.0.0.0/8,::1/128',
    );
  });

  it('reads the alert providers URLs: the providers by default, a trailing slash trimmed, nothing after the path', () => {
    expect(parseConfig(base).alertProviders).toEqual({
      pagerdutyEventsUrl: 'https://events.pagerduty.com/v2/enqueue',
      opsgenieApiUrl: 'https://api.opsgenie.com',
      telegramApiUrl: 'https://api.telegram.org',
    });
    expect(
      parseConfig({
        ...base,
        PAGERDUTY_EVENTS_URL: 'http://127.0.0.1:8080/v2/enqueue',
        OPSGENIE_API_URL: 'https://api.eu.opsgenie.com/',
        TELEGRAM_API_URL: 'http://127.0.0.1:9090/telegram/',
      }).alertProviders,
    ).toEqual({
      pagerdutyEventsUrl: 'http://127.0.0.1:8080/v2/enqueue',
      opsgenieApiUrl: 'https://api.eu.opsgenie.com',
      telegramApiUrl: 'http://127.0.0.1:9090/telegram',
    });
    expect(
      problems({
        ...base,
        PAGERDUTY_EVENTS_URL: 'events.pagerduty.com',
        OPSGENIE_API_URL: 'https://user:pw@api.opsgenie.com',
        TELEGRAM_API_URL: 'https://api.telegram.org?x=1',
      }),
    ).toEqual([
      'PAGERDUTY_EVENTS_URL: must be an absolute http(s) URL',
      'OPSGENIE_API_URL: must not carry credentials, a query or a fragment',
      'TELEGRAM_API_URL: must not carry credentials, a query or a fragment',
    ]);
  });

  it("reads the RDAP settings: IANA's bootstrap file by default, one server for every domain only when set", () => {
    expect(parseConfig(base).rdap).toEqual({ bootstrapUrl: 'https://data.iana.org/rdap/dns.json', baseUrl: null });
    expect(parseConfig({ ...base, RDAP_BASE_URL: 'http://127.0.0.1:8080/rdap/' }).rdap).toEqual({
      bootstrapUrl: 'https://data.iana.org/rdap/dns.json',
      baseUrl: 'http://127.0.0.1:8080/rdap',
    });
    expect(problems({ ...base, RDAP_BOOTSTRAP_URL: 'data.iana.org/rdap/dns.json' })).toEqual([
      'RDAP_BOOTSTRAP_URL: must be an absolute http(s) URL',
    ]);
  });
});
