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
    jsonLineWriters.set(logger, (level, message, fields) => {
      // What winston's own pipeline checks before its transport writes (either may be set after this is built); the
      // level is the caller's to check.
      if (logger.silent || transport.silent) return;
      // As winston's log() and timestamp() build the entry (Object.assign: a second object spread in one literal is
      // many times slower on Node 20).
      const entry: Record<string | symbol, unknown> = Object.assign({}, logger.defaultMeta, fields, { level, message });
      entry.timestamp = new Date().toISOString();
      entry[MESSAGE] = jsonLine(entry);
      entry[LEVEL] = level;
      transport.log!(entry, () => {});
    });
  }
  return logger;
}

/** The logger a process entry point builds from its config: JSON lines in production, readable lines otherwise. */
export function loggerFromConfig(
  config: { logLevel: string; env: string },
  service: string,
  opts: { stream?: NodeJS.WritableStream } = {},
): Logger {
  return createLogger({ level: config.logLevel, json: config.env === 'production', service, stream: opts.stream });
}
