import { PassThrough } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
import { createLogger, writeLogLine, type LineFields } from './logger.js';

/** A logger writing into an array of lines, as createLogger builds it for the API. */
function capture(json: boolean, opts: { silent?: boolean } = {}) {
  const lines: string[] = [];
  /** Each write the transport made, as the lines it carried. */
  const writes: string[][] = [];
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => {
    const written = chunk.toString('utf8').split('\n').filter(Boolean);
    writes.push(written);
    lines.push(...written);
  });
  const logger = createLogger({ level: 'debug', json, service: 'api', stream, ...opts });
  return { logger, lines, writes };
}

/** The end of the event-loop turn, when writeLogLine's lines are written. */
const turnEnd = () => new Promise((resolve) => setImmediate(resolve));

/** Lines written the same millisecond or not: the timestamp is the one thing allowed to differ. */
const sameInstant = (line: string) => line.replace(/"timestamp":"[^"]*"/, '"timestamp":"T"');

const REQUEST_LINE: LineFields = {
  requestId: '0c4b1f3e-8d7a-4a55-9b0a-2f1e6c3d4b5a',
  method: 'POST',
  route: '/ping/:secret',
  status: 200,
  ip: '::ffff:127.0.0.1',
  durationMs: 0.4,
};

describe('writeLogLine', () => {
  it('writes the JSON line winston writes for the same fields, byte for byte (keys sorted, undefined left out)', async () => {
    const { logger, lines } = capture(true);
    const cases: LineFields[] = [
      REQUEST_LINE,
      // The same keys again, then in another order (each line's keys are sorted afresh when they change).
      { ...REQUEST_LINE, durationMs: 7.5 },
      Object.fromEntries(Object.entries(REQUEST_LINE).reverse()) as LineFields,
      // A request whose socket went before its address was read; durations that are whole, negative zero or huge.
      { ...REQUEST_LINE, ip: undefined, durationMs: 12 },
      { ...REQUEST_LINE, durationMs: -0, status: 404 },
      { ...REQUEST_LINE, durationMs: 1e21, route: '(unmatched)' },
      // Whatever a client can put in a request id or a field: quotes, backslashes, controls, lone surrogates, emoji.
      { requestId: 'a"b\\c\n\u0001\u007f\ud800\udc00\ud83d\ude00\udfff', ok: true, zero: 0, service: 'worker' },
      { Zeta: 'upper case sorts first', alpha: 'a', _under: 'u', 'with space': 's', ümlaut: 'ü' },
    ];
    for (const fields of cases) {
      logger.log('info', 'request', { ...fields });
      writeLogLine(logger, 'info', 'request', fields);
    }
    logger.log('warn', 'slow', { ms: 3 });
    writeLogLine(logger, 'warn', 'slow', { ms: 3 });
    await turnEnd();
    expect(lines).toHaveLength(cases.length * 2 + 2);
    for (let i = 0; i < lines.length; i += 2) expect(sameInstant(lines[i + 1]!)).toBe(sameInstant(lines[i]!));
    expect(JSON.parse(lines[1]!)).toEqual({
      ...REQUEST_LINE,
      level: 'info',
      message: 'request',
      service: 'api',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(lines[1]!.startsWith('{"durationMs":0.4,"ip":"::ffff:127.0.0.1","level":"info","message":"request"')).toBe(
      true,
    );
  });

  it('writes nothing for a silent logger, set when built or later', async () => {
    const built = capture(true, { silent: true });
    writeLogLine(built.logger, 'info', 'request', REQUEST_LINE);
    const later = capture(true);
    later.logger.silent = true;
    writeLogLine(later.logger, 'info', 'request', REQUEST_LINE);
    await turnEnd();
    expect(built.lines).toEqual([]);
    expect(later.lines).toEqual([]);
  });

  it("writes a turn's lines together at its end, in order with the logger's other lines and levels", async () => {
    const { logger, lines, writes } = capture(true);
    const line = (n: number) => ({ ...REQUEST_LINE, status: n });
    for (let n = 1; n <= 25; n++) writeLogLine(logger, 'info', 'request', line(n));
    expect(lines).toEqual([]);
    await turnEnd();
    // 25 lines, one write.
    expect(writes.map((w) => w.length)).toEqual([25]);
    expect(lines.map((l) => (JSON.parse(l) as { status: number }).status)).toEqual(
      Array.from({ length: 25 }, (_, i) => i + 1),
    );
    // A line through winston, or one of another level, comes after the lines waiting before it.
    writes.length = 0;
    lines.length = 0;
    writeLogLine(logger, 'info', 'request', line(1));
    writeLogLine(logger, 'info', 'request', line(2));
    logger.warn('between');
    writeLogLine(logger, 'info', 'request', line(3));
    writeLogLine(logger, 'warn', 'slow', { ms: 3 });
    writeLogLine(logger, 'info', 'request', line(4));
    await turnEnd();
    const order = lines.map((l) => JSON.parse(l) as { message: string; status?: number });
    expect(order.map((l) => l.status ?? l.message)).toEqual([1, 2, 'between', 3, 'slow', 4]);
    expect(writes.map((w) => w.length)).toEqual([2, 1, 1, 1, 1]);
  });

  it('writes the readable development line through winston', () => {
    const { logger, lines } = capture(false);
    writeLogLine(logger, 'info', 'request', REQUEST_LINE);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^\d\d:\d\d:\d\d\.\d{3} info \[api\] request \{"requestId":"0c4b1f3e-[^"]+","method":"POST","route":"\/ping\/:secret","status":200,"ip":"::ffff:127.0.0.1","durationMs":0.4\}$/,
    );
  });
});
