import { promisify } from 'node:util';
import { brotliCompress, constants as zlibConstants, gzip } from 'node:zlib';
import type { Request, Response } from 'express';
import Negotiator from 'negotiator';

/**
 * Answers made once and sent as they are (the public page's HTML and JSON, the console's pages, the built assets), each
 * kept with its encoded copies; compress.ts encodes every other answer as it is sent.
 */

/** The encodings an answer rendered once is also kept in, in the order preferred when a client takes several alike. */
export type AnswerEncoding = 'br' | 'gzip';
const ENCODINGS: AnswerEncoding[] = ['br', 'gzip'];

/** An answer rendered once: its bytes, and the same encoded (each encoding made on first use, then kept). */
export interface RenderedAnswer {
  body: Buffer;
  encoded(encoding: AnswerEncoding): Promise<Buffer>;
}

const gzipAsync = promisify(gzip);
const brotliAsync = promisify(brotliCompress);

/**
 * How hard an answer is compressed, by how often it is sent. `kept`: made once and sent many times (the public page's
 * data as HTML and JSON, made once per load and sent to every visitor until the next; the built assets): gzip level
 * 9, a quarter fewer bytes than zlib's default 6 (three times its CPU, once), and brotli quality 6, about a third of
 * gzip 9's bytes for less CPU (50 components x 90 days: HTML 687 KB -> 10.0 KB gzip, 4.3 KB brotli; JSON 754 KB ->
 * 14.6 KB, 7.8 KB). `once`: pages made for one request (the console's, a page's incident and history pages): gzip level
 * 1 (a third of level 6's CPU time, for 20% more bytes) and brotli quality 4, the compression middleware's own for
 * every other answer.
 */
const COMPRESSION = {
  kept: { gzip: 9, br: 6 },
  once: { gzip: 1, br: 4 },
} as const;

/**
 * An answer to send as is or encoded. Each encoded copy is made on first use, off the event loop (zlib's thread pool:
 * a level-9 gzip of a 50-component page's 750 KB of JSON takes about 12 ms, which would otherwise hold up every
 * request in flight), and requests that want it meanwhile share it.
 */
export function renderedAnswer(content: string | Buffer, effort: keyof typeof COMPRESSION): RenderedAnswer {
  const body = typeof content === 'string' ? Buffer.from(content) : content;
  const levels = COMPRESSION[effort];
  const copies = new Map<AnswerEncoding, Promise<Buffer>>();
  const encode = (encoding: AnswerEncoding): Promise<Buffer> =>
    encoding === 'gzip'
      ? gzipAsync(body, { level: levels.gzip })
      : brotliAsync(body, {
          params: {
            [zlibConstants.BROTLI_PARAM_QUALITY]: levels.br,
            [zlibConstants.BROTLI_PARAM_SIZE_HINT]: body.length,
          },
        });
  return {
    body,
    encoded(encoding) {
      let copy = copies.get(encoding);
      if (copy === undefined) copies.set(encoding, (copy = encode(encoding)));
      return copy;
    },
  };
}

/**
 * The encoding to send an answer rendered once in: brotli or gzip when the client accepts one (browsers list gzip first
 * and take both: brotli is chosen among equals, as the compression middleware chooses for every other answer),
 * otherwise none. Negotiator's `preferred` is the tie-break that Express's `acceptsEncodings` does not offer.
 */
export function answerEncoding(req: Request): AnswerEncoding | null {
  const negotiator = new Negotiator(req);
  const chosen = (negotiator.encoding as EncodingChoice).call(negotiator, [...ENCODINGS, 'identity'], {
    preferred: ENCODINGS,
  });
  return ENCODINGS.find((e) => e === chosen) ?? null;
}

/** Negotiator's `encoding`, with the `preferred` option (negotiator 1.x) that its published types leave out. */
type EncodingChoice = (available: readonly string[], options: { preferred: readonly string[] }) => string | undefined;

/**
 * Sends an answer rendered once: brotli- or gzip-encoded for a client that accepts it (every browser and most
 * aggregators), as it is otherwise. Content-Type is set by the caller.
 */
export async function sendRendered(req: Request, res: Response, answer: RenderedAnswer): Promise<void> {
  res.vary('Accept-Encoding');
  const encoding = answerEncoding(req);
  if (encoding === null) {
    res.send(answer.body);
    return;
  }
  const encoded = await answer.encoded(encoding);
  res.setHeader('Content-Encoding', encoding);
  res.send(encoded);
}
