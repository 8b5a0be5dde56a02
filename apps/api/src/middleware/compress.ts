import compression from 'compression';
import type { RequestHandler } from 'express';

/** Answers smaller than this go as they are: gzip's own framing would eat most of the saving. */
export const COMPRESS_MIN_BYTES = 1024;

/**
 * Every text answer over 1 KB (JSON, HTML, feeds, CSV, SVG) is gzipped (or deflated, or brotli-compressed) when the
 * client says it accepts it, with `Vary: Accept-Encoding`. Answers that arrive already encoded (the status page and
 * the assets keep a gzipped copy of what they render once) are sent as they are; a server-sent event stream is never
 * held back to be compressed.
 */
export function compressAnswers(): RequestHandler {
  return compression({
    threshold: COMPRESS_MIN_BYTES,
    filter: (req, res) => {
      const type = String(res.getHeader('Content-Type') ?? '');
      if (type.startsWith('text/event-stream')) return false;
      return compression.filter(req, res);
    },
  });
}
