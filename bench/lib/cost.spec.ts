import { describe, expect, it } from '@jest/globals';
import {
  atRestLine,
  cpuPerCheck,
  cpuUse,
  referenceWork,
  referenceWorkLine,
  scopedCpuPerUnit,
  type CpuSample,
} from './cost.js';

const sample = (over: Partial<CpuSample>): CpuSample => ({
  workerMs: 0,
  workerMsByPid: [0],
  postgresMs: 0,
  redisMs: 0,
  machine: { busy: 0, total: 0 },
  at: 0,
  ...over,
});

describe('cpuUse', () => {
  it("gives each process's CPU in percent of one core, and the machine's in percent of all its cores", () => {
    const before = sample({
      workerMsByPid: [1000, 500],
      postgresMs: 200,
      redisMs: 100,
      machine: { busy: 100, total: 400 },
      at: 0,
    });
    const after = sample({
      workerMsByPid: [1800, 1400],
      postgresMs: 500,
      redisMs: 150,
      // /proc/stat ticks of every core: 2 cores x 1 s = 200 ticks, 190 of them busy.
      machine: { busy: 290, total: 600 },
      at: 1000,
    });
    expect(cpuUse(before, after, 2)).toEqual({
      workers: [80, 90],
      postgres: 30,
      redis: 5,
      machine: { cores: 2, busyPercent: 95 },
    });
  });

  it('has no machine figure where /proc/stat could not be read', () => {
    expect(cpuUse(sample({ machine: null }), sample({ at: 1000, machine: null }), 2).machine).toBeNull();
  });
});

describe('cpuPerCheck', () => {
  it('divides each process CPU over the window by the checks stored in it', () => {
    const c = cpuPerCheck(sample({}), sample({ workerMs: 300, postgresMs: 100, redisMs: 50 }), 200);
    expect(c).toEqual({ worker: 1.5, postgres: 0.5, redis: 0.25, total: 2.25 });
    expect(cpuPerCheck(sample({}), sample({ workerMs: 300 }), 0).total).toBeNaN();
  });
});

describe('scopedCpuPerUnit', () => {
  it("gives µs per request by side, counting the database's backends that started in the window whole", () => {
    const before = { processMs: 1000, backendMs: new Map([[11, 500]]), redisMs: 70 };
    // Backend 11 worked 300 ms more; 12 opened during the run (the pool grew) and worked 100 ms.
    const after = {
      processMs: 1600,
      backendMs: new Map([
        [11, 800],
        [12, 100],
      ]),
      redisMs: 90,
    };
    expect(scopedCpuPerUnit(before, after, 2000)).toEqual({ process: 300, postgres: 200, redis: 10, total: 510 });
    expect(scopedCpuPerUnit(before, after, 0).total).toBeNaN();
  });
});

describe('atRestLine', () => {
  const rest = { postgresPercent: 0.3, redisPercent: 0.2, databases: 7, seconds: 5 };

  it("names the servers' own CPU and the cluster's databases, with no warning when both are quiet", () => {
    expect(atRestLine(rest)).toBe(
      "PostgreSQL and Redis at rest: 0.3% and 0.2% of a core (7 databases in PostgreSQL's cluster)",
    );
  });

  it('warns when PostgreSQL is busy on its own, and says what usually causes it', () => {
    const line = atRestLine({ ...rest, postgresPercent: 3.5, databases: 43 });
    expect(line).toContain('3.5% and 0.2% of a core (43 databases');
    expect(line).toContain('WARNING: the servers are busy on their own, and every cost per check counts it');
    expect(line).toContain('autovacuum in other databases after test runs');
  });

  it("warns about a busy Redis without blaming PostgreSQL's databases", () => {
    const line = atRestLine({ ...rest, redisPercent: 2.5 });
    expect(line).toContain('WARNING');
    expect(line).not.toContain('autovacuum');
  });
});

describe('referenceWork', () => {
  it('times the fixed work by its CPU, each run, and answers their median', () => {
    const r = referenceWork(3);
    expect(r.runs).toHaveLength(3);
    for (const ms of r.runs) expect(ms).toBeGreaterThan(0);
    expect(r.cpuMs).toBe([...r.runs].sort((a, b) => a - b)[1]);
  });

  it('prints the median and every run', () => {
    expect(referenceWorkLine({ cpuMs: 187, runs: [190, 187, 250] })).toBe(
      'machine speed: a fixed piece of JavaScript took 187 ms of CPU (median of 190, 187, 250); lower is faster, and every CPU figure of this run moves with it',
    );
  });
});
