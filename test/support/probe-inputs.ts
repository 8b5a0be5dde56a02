import type { HttpProbeInput } from '../../apps/worker/src/probes/http.probe.js';

/** An http probe input with the defaults of a plain GET check (5 s timeout, no rules); `overrides` win. */
export function makeHttpInput(overrides: Partial<HttpProbeInput> & { url: string }): HttpProbeInput {
  return {
    method: 'GET',
    headers: {},
    body: null,
    contentType: 'application/json',
    expectedStatusCodes: [],
    keyword: null,
    keywordAbsent: null,
    jsonAssertion: null,
    timeoutMs: 5000,
    degradedAfterMs: null,
    latencyThresholdMs: null,
    ...overrides,
  };
}
