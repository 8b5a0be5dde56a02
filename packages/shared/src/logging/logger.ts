import winston from 'winston';

export type Logger = winston.Logger;

/** The keys winston's `info` object carries its level and finished line under (triple-beam's LEVEL and MESSAGE). */
const LEVEL = Symbol.for('level');
const MESSAGE = Symbol.for('message');

/** A line's own fields: flat values only, never the keys winston sets itself. */
export type LineFields = Record<string, string | number | boolean | undefined> & {
  level?: never;
  message?: never;
  timestamp?: never;
};

/** Writes a JSON line of a logger built by createLogger in JSON mode, without winston's format pipeline. */
type JsonLineWriter = (level: string, message: string, fields: LineFields) => void;
const jsonLineWriters = new WeakMap<Logger, JsonLineWriter>();

/**
 * The JSON line winston's `combine(timestamp(), errors(), json())` writes for `logger.log(level, message, fields)`,
 * byte for byte: keys sorted (safe-stable-stringify's deterministic order, which a plain object of non-integer keys
 * keeps through JSON.stringify), undefined values left out; flat string, number and boolean values serialize alike in
 * both. A hot line has the same keys every time: their sorted order is kept from one line to the next.
 */
function jsonLines(): (entry: Record<string, unknown>) => string {
  let keys: string[] = [];
  let sorted: string[] = [];
  const sameKeys = (next: string[]) => next.length === keys.length && next.every((k, i) => k === keys[i]);
  return (entry) => {
    const next = Object.keys(entry);
    if (!sameKeys(next)) {
      keys = next;
      sorted = [...next].sort();
    }
    const ordered: Record<string, unknown> = {};
    for (const key of sorted) ordered[key] = entry[key];
    return JSON.stringify(ordered);
  };
}

/**
 * `logger.log(level, message, fields)` for a line written on every request (requestLog's): the same line through the
 * same transport, without winston's object streams, format chain and per-line stringifier setup, which cost about as
 * much as the rest of the request's logging and metrics together. A logger that createLogger did not build in JSON
 * mode (the readable development lines) goes through winston. The caller checks the level first.
 *
 * The lines of one event-loop turn are written together, at its end (setImmediate), in one write: a line written on
 * its own is a system call that wakes whatever reads the logs, per request (about 3-6 µs of CPU on these machines
 * against under 1 µs a line written 25 at a time; the pings of one statement are answered in one turn). The order is
 * kept: any other line the logger writes, and a line of another level, writes the waiting ones first. They are also
 * written when the process exits (`exit`: a crash's error line and exit included). A SIGKILL loses at most the one
 * turn's lines.
 */
export function writeLogLine(logger: Logger, level: string, message: string, fields: LineFields): void {
  const write = jsonLineWriters.get(logger);
  if (write) write(level, message, fields);
  else logger.log(level, message, fields);
}

/**
 * JSON lines in production, readable lines in development. Callers log ids, routes and numbers only:
 * never a token, a header value or a body (see docs/adr/0004-logging.md).
 */
export function createLogger(opts: {
  level: string;
  json: boolean;
  service: string;
  silent?: boolean;
  stream?: NodeJS.WritableStream;
}): Logger {
  const format = opts.json
    ? winston.format.combine(winston.format.timestamp(), winston.format.errors({ stack: true }), winston.format.json())
    : winston.format.combine(
        winston.format.timestamp({ format: 'HH:mm:ss.SSS' }),
        winston.format.errors({ stack: true }),
        // Colours only on a terminal: a file or a pipe (a log collector, `npm start > log`) gets plain text.
        ...(process.stdout.isTTY ? [winston.format.colorize()] : []),
        winston.format.printf(({ timestamp, level, message, service, stack, ...rest }) => {
          const extra = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : '';
          return `${String(timestamp)} ${level} [${String(service)}] ${String(message)}${extra}${stack ? `\n${String(stack)}` : ''}`;
        }),
      );
  const transport = opts.stream
    ? new winston.transports.Stream({ stream: opts.stream })
    : new winston.transports.Console({ stderrLevels: ['error', 'warn'] });
  const logger = winston.createLogger({
    level: opts.level,
    defaultMeta: { service: opts.service },
    format,
    silent: opts.silent ?? false,
    transports: [transport],
  });
  if (opts.json) {
    const jsonLine = jsonLines();
    const write = transport.log!.bind(transport);
    const waiting = new TurnLines((level, lines) => write({ level, [LEVEL]: level, [MESSAGE]: lines }, () => {}));
    // winston's own lines (every other line of this logger) come after the waiting ones.
    transport.log = (info, next) => {
      waiting.flush();
      return write(info, next);
    };
    jsonLineWriters.set(logger, (level, message, fields) => {
      // What winston's own pipeline checks before its transport writes (either may be set after this is built); the
      // level is the caller's to check.
      if (logger.silent || transport.silent) return;
      // As winston's log() and timestamp() build the entry (Object.assign: a second object spread in one literal is
      // many times slower on Node 20).
      const entry: Record<string, unknown> = Object.assign({}, logger.defaultMeta, fields, { level, message });
      entry.timestamp = new Date().toISOString();
      waiting.add(level, jsonLine(entry));
    });
  }
  return logger;
}

/** The writers with lines waiting for the end of their turn: what `exit` writes. */
const turnsWaiting = new Set<TurnLines>();
let exitHooked = false;

/** One logger's finished lines of the current event-loop turn, written together (see writeLogLine). */
class TurnLines {
  private lines: string[] = [];
  private level = '';

  constructor(private readonly write: (level: string, lines: string) => void) {}

  add(level: string, line: string): void {
    if (this.lines.length && level !== this.level) this.flush();
    if (!this.lines.length) {
      this.level = level;
      if (!turnsWaiting.size) setImmediate(flushTurns);
      turnsWaiting.add(this);
      if (!exitHooked) {
        exitHooked = true;
        process.once('exit', flushTurns);
      }
    }
    this.lines.push(line);
  }

  flush(): void {
    if (!this.lines.length) return;
    const lines = this.lines.join('\n');
    this.lines = [];
    turnsWaiting.delete(this);
    this.write(this.level, lines);
  }
}

function flushTurns(): void {
  for (const waiting of [...turnsWaiting]) waiting.flush();
}

/** The logger a process entry point builds from its config: JSON lines in production, readable lines otherwise. */
export function loggerFromConfig(
  config: { logLevel: string; env: string },
  service: string,
  opts: { stream?: NodeJS.WritableStream } = {},
): Logger {
  return createLogger({ level: config.logLevel, json: config.env === 'production', service, stream: opts.stream });
}
