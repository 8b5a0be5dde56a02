import { randomUUID } from 'node:crypto';
import http, { type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { AppError, type Logger } from '@statusvane/shared';
import { REQUEST_LOG_LEVEL } from './middleware/request-log.js';

/**
 * What Node's HTTP server answers by itself, before Express sees a request, answered here instead with the API's
 * envelope, `Content-Type: application/json; charset=utf-8` and an `X-Request-Id` like every other answer (issue
 * 12): a request the parser refuses (`clientError`: headers over 16 KiB, a control character in a header value, a
 * malformed request line), an HTTP/1.1 request without Host, and an `Expect` other than 100-continue. Node's own
 * answers to these are a bare status line with an empty body. The request id is fresh: no header was read.
 */

interface Answer {
  status: number;
  message: string;
}

/** The body and headers of such an answer. Always `invalid_request`: the request never reached a route. */
function render({ status, message }: Answer): { body: string; headers: Record<string, string>; requestId: string } {
  const body = JSON.stringify(new AppError('invalid_request', message, undefined, status).toEnvelope());
  const requestId = randomUUID();
  return {
    body,
    requestId,
    headers: {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': String(Buffer.byteLength(body)),
      'X-Request-Id': requestId,
      // The client sent something this server cannot read on: nothing more on this connection.
      Connection: 'close',
    },
  };
}

/** The parser's fixed reason text (`Invalid header value char`), never request bytes; bounded all the same. */
function reasonOf(err: { reason?: unknown }): string | null {
  const reason = typeof err.reason === 'string' ? err.reason.replace(/[^\x20-\x7e]/g, '').slice(0, 100) : '';
  return reason || null;
}

/** The answer to a request Node's parser refused: the statuses Node itself would send (431, 413, 408, else 400). */
function clientErrorAnswer(err: NodeJS.ErrnoException & { reason?: unknown }): Answer {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        message: `The request line and headers together are larger than ${http.maxHeaderSize / 1024} KiB`,
      };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, message: 'The chunk extensions of the request body are too large' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, message: 'The request was not received in time' };
    default: {
      const reason = reasonOf(err);
      return { status: 400, message: `The request is not valid HTTP${reason ? ` (${reason})` : ''}` };
    }
  }
}

/**
 * Whether the refused request was a HEAD, whose answer has no body (RFC 9110 section 9.3.2: a client reads none, and
 * Node's client fails on the bytes it did not expect). The request never parsed, so the method is read from the bytes
 * the parser failed on, which start with the request line when the request came in one read (a request of usual
 * size, each request of a keep-alive connection in a read of its own).
 */
function wasHead(err: { rawPacket?: unknown }): boolean {
  return Buffer.isBuffer(err.rawPacket) && err.rawPacket.subarray(0, 5).toString('latin1') === 'HEAD ';
}

/** Writes an answer on a socket whose request never became a ServerResponse, then closes it. */
function writeOnSocket(socket: Socket, answer: Answer, headRequest: boolean): string {
  const { body, headers, requestId } = render(answer);
  const lines = [
    `HTTP/1.1 ${answer.status} ${http.STATUS_CODES[answer.status] ?? ''}`,
    `Date: ${new Date().toUTCString()}`,
  ];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  socket.end(`${lines.join('\r\n')}\r\n\r\n${headRequest ? '' : body}`);
  // What Node does after its own answer: the parser's state is lost, so the connection goes once the answer is out.
  socket.once('finish', () => socket.destroy());
  return requestId;
}

function writeOnResponse(res: ServerResponse, answer: Answer): void {
  const { body, headers } = render(answer);
  res.writeHead(answer.status, headers).end(body);
}

/**
 * The API's HTTP server around `app`: main.ts and the tests that need a real listener both build it here, so what
 * the tests see on a raw socket is what production answers.
 */
export function createApiServer(app: RequestListener, logger?: Logger): Server {
  // Host is required of HTTP/1.1 (RFC 9112 section 3.2) and stays required; refused below, with the envelope.
  const server = http.createServer({ requireHostHeader: false }, (req, res) => {
    if (req.httpVersion === '1.1' && req.headers.host === undefined) {
      writeOnResponse(res, { status: 400, message: 'An HTTP/1.1 request needs a Host header' });
      return;
    }
    app(req, res);
  });

  // Without this listener Node answers 417 with an empty body and never passes the request on.
  server.on('checkExpectation', (_req, res: ServerResponse) => {
    writeOnResponse(res, { status: 417, message: 'Expect: only 100-continue is supported' });
  });

  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    // As Node's default handler: nothing to say to a peer that is gone, and never bytes in the middle of a response
    // already under way on this connection (a pipelined request after it failed to parse). `_httpMessage` is that
    // response: Node's own handler makes the same check on it.
    const inFlight = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
      socket.destroy();
      return;
    }
    const answer = clientErrorAnswer(err);
    const requestId = writeOnSocket(socket, answer, wasHead(err as { rawPacket?: unknown }));
    if (logger?.isLevelEnabled(REQUEST_LOG_LEVEL)) {
      logger.log(REQUEST_LOG_LEVEL, 'request refused by the HTTP parser', {
        requestId,
        status: answer.status,
        error: err.code,
        ip: socket.remoteAddress,
      });
    }
  });
  return server;
}
