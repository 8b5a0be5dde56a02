import winston from 'winston';

export type Logger = winston.Logger;

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
  return winston.createLogger({
    level: opts.level,
    defaultMeta: { service: opts.service },
    format,
    silent: opts.silent ?? false,
    transports: [
      opts.stream
        ? new winston.transports.Stream({ stream: opts.stream })
        : new winston.transports.Console({ stderrLevels: ['error', 'warn'] }),
    ],
  });
}

/** The logger a process entry point builds from its config: JSON lines in production, readable lines otherwise. */
export function loggerFromConfig(
  config: { logLevel: string; env: string },
  service: string,
  opts: { stream?: NodeJS.WritableStream } = {},
): Logger {
  return createLogger({ level: config.logLevel, json: config.env === 'production', service, stream: opts.stream });
}
