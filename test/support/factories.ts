/** A valid http monitor create body; override any field. Public IP literal: no DNS, never probed in API tests. */
export function makeMonitorInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: 'Homepage', target: 'https://93.184.215.14/health', ...overrides };
}

/** makeMonitorInput with every optional http field set (other values than the defaults); override any field. */
export function makeFullHttpMonitorInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return makeMonitorInput({
    method: 'POST',
    headers: { 'X-Trace': 'on' },
    body: '{"ping":true}',
    expectedStatusCodes: [200, 204],
    keyword: 'ok',
    degradedAfterMs: 800,
    latencyThresholdMs: 1500,
    jsonAssertion: { path: 'status', operator: 'eq', value: 'ok' },
    contentType: 'application/json',
    environment: 'staging',
    metadata: { team: 'payments', tier: 'gold' },
    slaTarget: 99.95,
    regions: ['local'],
    quorum: 1,
    certificateExpiryDays: 14,
    sendTraceparent: false,
    ...overrides,
  });
}
