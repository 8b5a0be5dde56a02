/**
 * api probe: a multi-step API check (spec section 9). Steps run in order, each one request made by the http probe's
 * `exchange` (the same SSRF guard on every connection, whatever the url came from; the same redirects, caps and
 * timings), and stop at the first failure, except `always` steps, which run after a failure too (cleanup). No
 * database, no queue.
 *
 * Decisions (docs/decisions.md, "Multi-step API checks"):
 * - One step: its url, header values and body are templated (`{{name}}` from an earlier step's extract,
 *   `{{secrets.NAME}}` a workspace secret); every secret used must allow the url's host (else
 *   `secret_host_not_allowed` and nothing is sent), and redirects must stay on those hosts. Then status
 *   (`expectedStatusCodes`, else any 2xx or 3xx) -> assertions in order -> responseSchema -> extracts. The first
 *   failing stage gives the step's reason (`unexpected_status:500`, `assertion_failed: <detail>`,
 *   `schema_mismatch: ...`, `extract_missing: <detail>`, or the request's own: `timeout`, `ssrf_blocked`, ...).
 * - The run: `timeoutMs` bounds all of it. Each step gets what is left; a step still running when it is spent fails
 *   with `timeout`, and every later step is skipped, `always` ones too (no time is left to run them).
 * - The result: down with `step_failed: <step name>: <reason>` of the first failed step (a cleanup step's own failure
 *   is in its step result, never the result's reason); otherwise the latency rules on the whole run's time.
 *   `statusCode` and `address` are those of the failed step, else of the last step run; `responseMs` the whole run.
 * - An `always` step that needs an extract a failed or skipped step never produced is skipped with that reason.
 * - Secret values never leave: every reason is scrubbed of them (`<secret:NAME>`) before it is returned.
 */
import { performance } from 'node:perf_hooks';
import type { ValidateFunction } from 'ajv';
import {
  evaluateStepAssertion,
  hostAllowed,
  redactSecretValues,
  renderTemplate,
  resolveJsonPath,
  parseJsonPath,
  schemaMismatch,
  type ApiStepInput,
  type StepResponse,
  type StepResult,
} from '@statusvane/shared';
import { parseJsonBody, probeUrl, type HttpExchange, type HttpProbe } from './http.probe.js';
import { applyLatencyRules, downResult, truncateReason } from './result.js';
import { NO_PHASES, type LatencyRules, type ProbeResult } from './types.js';

/** A workspace secret as a run uses it: its value (decrypted in memory only) and where it may go. */
export interface RunSecret {
  value: string;
  allowedHosts: readonly string[];
}

export interface ApiProbeInput extends LatencyRules {
  /** Headers and bodies decrypted. */
  steps: readonly ApiStepInput[];
  /** Each step's compiled responseSchema (null: none; an Error: it cannot be compiled, the step fails). */
  validators: ReadonlyArray<ValidateFunction | Error | null>;
  /** The secrets the steps name that exist (a name missing here fails the step that uses it). */
  secrets: ReadonlyMap<string, RunSecret>;
  timeoutMs: number;
}

export interface ApiProbe {
  probe(input: ApiProbeInput): Promise<ProbeResult>;
}

type StepVerdict = { ok: true; extracts: Array<[string, string]> } | { ok: false; reason: string };

/** The header values of a response as assertions read them: lower-case names, repeated ones joined with ", ". */
function flatHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** An extracted value as text: a string as it is, anything else as its JSON. */
const asText = (v: unknown): string => (typeof v === 'string' ? v : JSON.stringify(v));

/** Status, assertions, schema and extracts of one response, in that order. */
function judgeStep(
  step: ApiStepInput,
  validator: ValidateFunction | Error | null,
  sent: Extract<HttpExchange, { ok: true }>,
): StepVerdict {
  const expected = step.expectedStatusCodes ?? [];
  const accepted = expected.length
    ? expected.includes(sent.statusCode)
    : sent.statusCode >= 200 && sent.statusCode < 400;
  if (!accepted) return { ok: false, reason: `unexpected_status:${sent.statusCode}` };
  let parsed: ReturnType<typeof parseJsonBody> | undefined;
  const headers = flatHeaders(sent.headers);
  const response: StepResponse = {
    statusCode: sent.statusCode,
    headers,
    text: sent.text,
    json: () => (parsed ??= parseJsonBody(sent)),
    responseMs: sent.responseMs,
  };
  for (const a of step.assertions ?? []) {
    const verdict = evaluateStepAssertion(a, response);
    if (!verdict.ok) return { ok: false, reason: `assertion_failed: ${verdict.detail}` };
  }
  if (validator instanceof Error) return { ok: false, reason: `config_error: responseSchema: ${validator.message}` };
  if (validator) {
    const doc = response.json();
    if (!doc.ok) return { ok: false, reason: doc.reason };
    const mismatch = schemaMismatch(validator, doc.value);
    if (mismatch) return { ok: false, reason: mismatch };
  }
  const extracts: Array<[string, string]> = [];
  for (const e of step.extract ?? []) {
    if (e.from === 'header') {
      const value = headers[e.path.toLowerCase()];
      if (value === undefined) return { ok: false, reason: `extract_missing: ${e.as}: no ${e.path} header` };
      extracts.push([e.as, value]);
      continue;
    }
    const doc = response.json();
    if (!doc.ok) return { ok: false, reason: `extract_missing: ${e.as}: the body is not JSON` };
    const found = resolveJsonPath(doc.value, parseJsonPath(e.path));
    if (!found.found || found.value === null || found.value === undefined)
      return { ok: false, reason: `extract_missing: ${e.as}: ${e.path} not found in the response` };
    extracts.push([e.as, asText(found.value)]);
  }
  return { ok: true, extracts };
}

/** The request a step makes, templated; or why it cannot be made (nothing is sent then). */
function prepareStep(
  step: ApiStepInput,
  extracts: ReadonlyMap<string, string>,
  secrets: ReadonlyMap<string, RunSecret>,
):
  | { ok: true; url: URL; headers: Record<string, string>; body: string | null; secretHosts: readonly string[] | null }
  | { ok: false; reason: string; missingExtract: boolean } {
  const values = { extracts, secrets: new Map([...secrets].map(([k, v]) => [k, v.value])) };
  const used = new Set<string>();
  const fill = (text: string) => {
    const r = renderTemplate(text, values);
    if (r.ok) for (const name of r.secretsUsed) used.add(name);
    return r;
  };
  const url = fill(step.url);
  if (!url.ok) return { ok: false, reason: url.reason, missingExtract: url.reason.startsWith('extract_missing') };
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(step.headers ?? {})) {
    const r = fill(value);
    if (!r.ok) return { ok: false, reason: r.reason, missingExtract: r.reason.startsWith('extract_missing') };
    if (/[\r\n\0]/.test(r.text))
      return {
        ok: false,
        reason: `invalid_request: header ${name} would contain CR, LF or NUL`,
        missingExtract: false,
      };
    headers[name] = r.text;
  }
  let body: string | null = null;
  if (step.body !== undefined) {
    const r = fill(step.body);
    if (!r.ok) return { ok: false, reason: r.reason, missingExtract: r.reason.startsWith('extract_missing') };
    body = r.text;
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type'))
      headers['content-type'] = 'application/json';
  }
  const target = probeUrl(url.text);
  if (typeof target === 'string') return { ok: false, reason: target, missingExtract: false };
  let secretHosts: string[] | null = null;
  for (const name of used) {
    const allowed = secrets.get(name)!.allowedHosts;
    if (!hostAllowed(target.hostname, allowed))
      return {
        ok: false,
        reason: `secret_host_not_allowed: ${name} may not be sent to ${target.hostname}`,
        missingExtract: false,
      };
    secretHosts = secretHosts === null ? [...allowed] : secretHosts.filter((h) => hostAllowed(h, allowed));
  }
  return { ok: true, url: target, headers, body, secretHosts };
}

export function createApiProbe(deps: { http: HttpProbe }): ApiProbe {
  async function probe(input: ApiProbeInput): Promise<ProbeResult> {
    const started = performance.now();
    const deadline = started + input.timeoutMs;
    const extracts = new Map<string, string>();
    const results: StepResult[] = [];
    let failure: { step: string; reason: string; statusCode: number | null; address: string | null } | null = null;
    let timedOut = false;
    let last: { statusCode: number | null; address: string | null } = { statusCode: null, address: null };

    for (const [i, step] of input.steps.entries()) {
      const skip = (reason: string | null = null) =>
        results.push({ name: step.name, outcome: 'skipped', reason, statusCode: null, responseMs: null });
      if (timedOut || (failure && !step.always)) {
        skip(timedOut && step.always ? 'timeout: no time left for cleanup' : null);
        continue;
      }
      const prepared = prepareStep(step, extracts, input.secrets);
      const fail = (reason: string, statusCode: number | null, responseMs: number | null, address: string | null) => {
        results.push({ name: step.name, outcome: 'failed', reason, statusCode, responseMs });
        failure ??= { step: step.name, reason, statusCode, address };
        last = { statusCode, address };
      };
      if (!prepared.ok) {
        // A cleanup step that needs what a failed or skipped step never produced cannot run: skipped, not failed.
        if (failure && prepared.missingExtract) skip(prepared.reason);
        else fail(prepared.reason, null, null, null);
        continue;
      }
      const remaining = Math.floor(deadline - performance.now());
      if (remaining <= 0) {
        timedOut = true;
        fail('timeout', null, null, null);
        continue;
      }
      const sent = await deps.http.exchange({
        url: prepared.url,
        method: step.method,
        headers: prepared.headers,
        body: prepared.body,
        contentType: null,
        timeoutMs: remaining,
        keepBody: Boolean(step.assertions?.length || step.extract?.length || step.responseSchema),
        secretHosts: prepared.secretHosts,
      });
      if (!sent.ok) {
        if (sent.reason === 'timeout' && performance.now() >= deadline - 1) timedOut = true;
        fail(sent.reason, sent.statusCode, null, sent.address);
        continue;
      }
      const verdict = judgeStep(step, input.validators[i] ?? null, sent);
      if (!verdict.ok) {
        fail(verdict.reason, sent.statusCode, sent.responseMs, sent.address);
        continue;
      }
      for (const [name, value] of verdict.extracts) extracts.set(name, value);
      results.push({
        name: step.name,
        outcome: 'passed',
        reason: null,
        statusCode: sent.statusCode,
        responseMs: sent.responseMs,
      });
      last = { statusCode: sent.statusCode, address: sent.address };
    }

    // Nothing a secret's value could reach leaves the probe unscrubbed.
    const values = new Map([...input.secrets].map(([k, v]) => [k, v.value]));
    const steps = results.map((r) => ({
      ...r,
      reason: r.reason === null ? null : truncateReason(redactSecretValues(r.reason, values)),
    }));
    const responseMs = Math.round(performance.now() - started);
    const end = failure ?? last;
    const base = { responseMs, statusCode: end.statusCode, phases: { ...NO_PHASES }, address: end.address, steps };
    if (failure) {
      const f = failure as { step: string; reason: string };
      return { ...downResult(redactSecretValues(`step_failed: ${f.step}: ${f.reason}`, values), base), steps };
    }
    const latency = applyLatencyRules(responseMs, input);
    return { outcome: latency.outcome, reason: latency.reason, ...base };
  }
  return { probe };
}
