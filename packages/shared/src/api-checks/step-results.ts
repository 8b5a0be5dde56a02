/**
 * Per-step results of an api check: `steps: [{ name, outcome, reason, statusCode, responseMs }]` in the API, stored
 * compact (`check_results.steps`, and one jsonb per result in a packed day: ADR 0017) as one array per step,
 * `[name, outcome, statusCode, responseMs]` plus the reason when there is one, the outcome one letter. A 3-step passing
 * run is about 70 bytes of jsonb instead of about 200 as objects.
 */
export type StepOutcome = 'passed' | 'failed' | 'skipped';

export interface StepResult {
  name: string;
  outcome: StepOutcome;
  reason: string | null;
  statusCode: number | null;
  responseMs: number | null;
}

type Packed = [string, 'p' | 'f' | 's', number | null, number | null, string?];
const LETTER = { passed: 'p', failed: 'f', skipped: 's' } as const;
const WORD = { p: 'passed', f: 'failed', s: 'skipped' } as const;

export function packStepResults(steps: readonly StepResult[]): Packed[] {
  return steps.map((s) => {
    const row: Packed = [s.name, LETTER[s.outcome], s.statusCode, s.responseMs];
    if (s.reason !== null) row.push(s.reason);
    return row;
  });
}

/** The stored form read back; anything else (a value this code never wrote) reads as no steps. */
export function unpackStepResults(stored: unknown): StepResult[] | null {
  if (!Array.isArray(stored)) return null;
  return stored.flatMap((row: unknown) => {
    if (!Array.isArray(row) || typeof row[0] !== 'string' || !(row[1] in WORD)) return [];
    const [name, letter, statusCode, responseMs, reason] = row as Packed;
    return [{ name, outcome: WORD[letter], reason: reason ?? null, statusCode, responseMs }];
  });
}
