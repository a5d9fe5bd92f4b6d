import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { encodeError } from '@svc/api-codec';
import type { JsonLogger } from '@svc/logging';
import { nextRequestId } from './request-id';

/** Node's parser errors that have a status of their own; any other unreadable request is a 400. */
const STATUS_BY_CODE: ReadonlyMap<string, [number, string, string]> = new Map([
  ['HPE_HEADER_OVERFLOW', [431, 'Request Header Fields Too Large', 'the request headers are too large']],
  ['HPE_CHUNK_EXTENSIONS_OVERFLOW', [413, 'Payload Too Large', 'the chunk extensions of the request body are too large']],
  ['ERR_HTTP_REQUEST_TIMEOUT', [408, 'Request Timeout', 'the request was not received in time']],
]);
const MALFORMED: [number, string, string] = [400, 'Bad Request', 'the request is not well-formed HTTP/1.1'];

/**
 * The raw answer to bytes Node could not parse as an HTTP request: the API's error body (JSON, since no
 * Content-Type could be read), then the connection closes.
 */
export function malformedHttpAnswer(code: string | undefined, requestId: number, extraHeaders: readonly string[] = []): string {
  const [status, reason, message] = (code !== undefined && STATUS_BY_CODE.get(code)) || MALFORMED;
  const encoded = encodeError('json', requestId, [message]);
  const headers = [
    `HTTP/1.1 ${status} ${reason}`,
    `Content-Type: ${encoded.contentType}`,
    `Content-Length: ${Buffer.byteLength(encoded.body)}`,
    `X-Svc-Request-Id: ${requestId}`,
    ...extraHeaders,
    'Connection: close',
  ];
  return `${headers.join('\r\n')}\r\n\r\n${encoded.body}`;
}

/**
 * Node's `clientError`: without a listener Node answers a bare 400 with no body. A response to an earlier request on
 * the connection may still be on its way (the unreadable bytes followed a body shorter than they were): it goes
 * first. `_httpMessage` is how Node's own server tracks that response. `extraHeaders` are whole header lines
 * every answer of the server carries (HSTS over HTTPS).
 */
export function answerMalformedHttp(error: NodeJS.ErrnoException, socket: Duplex, logger: Pick<JsonLogger, 'info'>, extraHeaders: readonly string[] = []): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const requestId = nextRequestId();
  logger.info('malformed HTTP request', { requestId, code: error.code });
  const answer = () => {
    if (socket.writable) socket.end(malformedHttpAnswer(error.code, requestId, extraHeaders));
    else socket.destroy();
  };
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (inFlight && !inFlight.writableFinished) inFlight.once('finish', answer);
  else answer();
}
