import { describe, expect, it, jest } from '@jest/globals';
import { recordWithJson, toMonitorRecord, type MonitorRow } from './monitor-record.js';

const DAY = 86_400_000;
const now = new Date('2026-11-29T10:00:00.000Z');

const row = (over: Partial<MonitorRow> = {}): MonitorRow =>
  ({
    id: '4b1c2a57-3f1e-4d8b-9a51-6e2f0c7d8e90',
    ref: null,
    version: 3,
    name: 'Homepage "main"\u2028',
    componentId: '5f00927c-787e-47e6-aa03-573df47266dd',
    escalationPolicyId: null,
    type: 'http',
    target: 'https://example.com/health',
    method: 'GET',
    intervalSeconds: 60,
    timeoutMs: 10_000,
    openThreshold: 2,
    resolveThreshold: 2,
    regions: [],
    quorum: null,
    confirmAfterSeconds: 15,
    dependsOn: [],
    expectedStatusCodes: [200],
    keyword: null,
    keywordAbsent: null,
    degradedAfterMs: null,
    latencyThresholdMs: null,
    headerNames: ['X-Key'],
    bodyEnc: null,
    headersEnc: 'sealed',
    encKeyId: 'k1',
    steps: null,
    stepSecretsEnc: null,
    secretRefs: [],
    responseSchema: null,
    contentType: 'application/json',
    environment: 'production',
    metadata: { team: 'web' },
    slaTarget: null,
    jsonAssertion: null,
    graceSeconds: 60,
    certificateExpiryDays: 7,
    certificate: {
      subject: 'CN=example.com',
      issuer: 'CN=R11',
      validFrom: '2026-10-01T00:00:00.000Z',
      validTo: new Date(now.getTime() + 10 * DAY + 1_000).toISOString(),
      fingerprint256: 'AA:BB',
    },
    sendTraceparent: true,
    domainExpiryDays: 30,
    domain: null,
    dnsRecordType: null,
    dnsResolver: null,
    dnsExpected: [],
    maxRunSeconds: null,
    minRunSeconds: null,
    schedule: null,
    timezone: 'UTC',
    lastPingAt: null,
    lastPingFailAt: null,
    enabled: true,
    status: 'up',
    pingSecret: null,
    lastCheckedAt: new Date('2026-11-29T09:59:00.000Z'),
    createdAt: new Date('2026-11-01T00:00:00.000Z'),
    ...over,
  }) as MonitorRow;

const opts = { publicBaseUrl: 'https://status.example.com', checkRegions: ['eu', 'us'], maintenanceUntil: null, now };

describe('recordWithJson', () => {
  it('is toMonitorRecord and its JSON.stringify, byte for byte', () => {
    const r = row();
    const { record, json } = recordWithJson(r, opts);
    expect(record).toEqual(toMonitorRecord(r, opts));
    expect(json()).toBe(JSON.stringify(toMonitorRecord(r, opts)));
  });

  it('serializes the record only when its JSON is asked for, and once', () => {
    const r = row();
    const made = recordWithJson(r, opts);
    const stringify = jest.spyOn(JSON, 'stringify');
    try {
      recordWithJson(r, opts);
      expect(stringify).not.toHaveBeenCalled();
      const text = made.json();
      expect(recordWithJson(r, opts).json()).toBe(text);
      expect(stringify).toHaveBeenCalledTimes(1);
    } finally {
      stringify.mockRestore();
    }
  });

  it('makes a row its record once while nothing it shows from `now` changes', () => {
    const r = row();
    const first = recordWithJson(r, opts);
    expect(recordWithJson(r, { ...opts, now: new Date(now.getTime() + 1_000) }).record).toBe(first.record);
    // An equal row of another read is another object: made again, equal.
    expect(recordWithJson(row(), opts).record).not.toBe(first.record);
    expect(recordWithJson(row(), opts).json()).toBe(first.json());
  });

  it('makes it again when a day of the certificate or the domain passes, a window covers it, or the config differs', () => {
    const r = row();
    const first = recordWithJson(r, opts);
    const dayLater = recordWithJson(r, { ...opts, now: new Date(now.getTime() + 2_000) });
    expect(dayLater.record.certificate?.daysRemaining).toBe(9);
    expect(first.record.certificate?.daysRemaining).toBe(10);
    const covered = recordWithJson(r, { ...opts, maintenanceUntil: new Date(now.getTime() + DAY) });
    expect(covered.record.status).toBe('maintenance');
    expect(recordWithJson(r, { ...opts, publicBaseUrl: 'https://other.example.com' }).record).not.toBe(covered.record);
    expect(recordWithJson(r, { ...opts, checkRegions: ['eu'] }).record.regions).toEqual(['eu']);

    const d = row({
      type: 'domain',
      target: 'example.com',
      certificate: null,
      domain: { expiresAt: new Date(now.getTime() + 5 * DAY + 500).toISOString(), registrar: null },
    });
    expect(recordWithJson(d, opts).record.domain?.daysRemaining).toBe(5);
    expect(recordWithJson(d, { ...opts, now: new Date(now.getTime() + 1_000) }).record.domain?.daysRemaining).toBe(4);
  });
});
