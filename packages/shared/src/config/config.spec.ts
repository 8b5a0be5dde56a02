import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { ConfigError, parseConfig } from './config.js';

const base = {
  DATABASE_URL: 'postgresql://u:p@localhost:5432/db',
  REDIS_URL: 'redis://localhost:6379',
  ENCRYPTION_KEY: 'a'.repeat(64),
};

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
    const c = parseConfig({ ...base, CHECK_REGIONS: ' eu-west , us-east,eu-west', PUBLIC_BASE_URL: 'https://status.example.com/', PORT: '8080' });
    expect(c.checkRegions).toEqual(['eu-west', 'us-east']);
    expect(c.publicBaseUrl).toBe('https://status.example.com');
    expect(c.port).toBe(8080);
  });

  it('keeps raw results and hourly rollups 35 days and daily rollups 400 by default, and refuses less than the histories need', () => {
    expect(parseConfig(base).retention).toEqual({ checkResultsDays: 35, hourlyRollupsDays: 35, dailyRollupsDays: 400 });
    const c = parseConfig({ ...base, CHECK_RESULTS_RETENTION_DAYS: '2', HOURLY_ROLLUPS_RETENTION_DAYS: '31', DAILY_ROLLUPS_RETENTION_DAYS: '91' });
    expect(c.retention).toEqual({ checkResultsDays: 2, hourlyRollupsDays: 31, dailyRollupsDays: 91 });
    const text = problems({ ...base, CHECK_RESULTS_RETENTION_DAYS: '0', HOURLY_ROLLUPS_RETENTION_DAYS: '30', DAILY_ROLLUPS_RETENTION_DAYS: '90' }).join('\n');
    expect(text).toMatch(/CHECK_RESULTS_RETENTION_DAYS/);
    expect(text).toMatch(/HOURLY_ROLLUPS_RETENTION_DAYS/);
    expect(text).toMatch(/DAILY_ROLLUPS_RETENTION_DAYS/);
  });

  it('refuses `all` as a region name: it means every region in the response-time history', () => {
    expect(problems({ ...base, REGION: 'all' }).join()).toMatch(/REGION: `all` is reserved/);
    expect(problems({ ...base, CHECK_REGIONS: 'local,all' }).join()).toMatch(/CHECK_REGIONS.*`all` is reserved/);
    expect(parseConfig({ ...base, CHECK_REGIONS: 'all-eu,ball' }).checkRegions).toEqual(['all-eu', 'ball']);
  });

  it('lists every problem at once, readably', () => {
    const p = problems({ DATABASE_URL: 'mysql://x', PORT: 'abc', CHECK_REGIONS: 'Bad Region', LOG_LEVEL: 'loud' });
    const text = p.join('\n');
    expect(text).toMatch(/DATABASE_URL/);
    expect(text).toMatch(/REDIS_URL/);
    expect(text).toMatch(/PORT/);
    expect(text).toMatch(/CHECK_REGIONS/);
    expect(text).toMatch(/LOG_LEVEL/);
    try {
      parseConfig({});
    } catch (err) {
      expect((err as Error).message).toMatch(/^Invalid configuration:\n {2}- /);
    }
  });

  it('requires ENCRYPTION_KEY in production and validates its length', () => {
    expect(problems({ ...base, NODE_ENV: 'production', ENCRYPTION_KEY: undefined }).join()).toMatch(/ENCRYPTION_KEY: is required in production/);
    expect(problems({ ...base, ENCRYPTION_KEY: 'short' }).join()).toMatch(/ENCRYPTION_KEY/);
    expect(parseConfig({ ...base, ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') }).encryption.current.key).toEqual(Buffer.alloc(32, 7));
  });

  it('generates a development key once under DATA_DIR and reuses it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sv-config-'));
    const env = { ...base, ENCRYPTION_KEY: undefined, DATA_DIR: dir };
    const first = parseConfig(env).encryption.current;
    const second = parseConfig(env).encryption.current;
    expect(second.id).toBe(first.id);
    expect(Buffer.from(readFileSync(join(dir, 'encryption.key'), 'utf8').trim(), 'base64')).toEqual(first.key);
  });

  it('validates ALLOWED_TARGET_CIDRS', () => {
    expect(problems({ ...base, ALLOWED_TARGET_CIDRS: 'not-a-cidr' }).join()).toMatch(/ALLOWED_TARGET_CIDRS/);
    expect(parseConfig({ ...base, ALLOWED_TARGET_CIDRS: '127.0.0.0/8,::1/128' }).allowedTargetCidrs).toBe('127.0.0.0/8,::1/128');
  });
});
