import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type Koa from 'koa';
import type { Config } from '../shared/config.ts';
import type { AppError } from '../shared/errors/AppError.ts';
import { headersTooLarge, malformedRequest, requestTimeout } from '../shared/errors/errors.ts';
import type { Logger } from '../shared/logger.ts';
import type { AppState } from './AppState.ts';
import { ACCEPTABLE_REQUEST_ID } from './middleware/requestId.ts';

/** How often Node looks for requests past their timeouts; the timeouts are exact to within this. */
const TIMEOUT_CHECK_INTERVAL_MS = 1000;

/**
 * The HTTP server around the app, for server.ts and the tests alike. Timeouts bound how long a slow or
 * silent client may hold a connection, and requests Node's parser refuses (they never reach Koa) are
 * still answered in the error envelope with a request id.
 */
export const createHttpServer = (app: Koa<AppState>, config: Config, logger: Logger): Server => {
  const handle = app.callback();
  const server = createServer(
    {
      headersTimeout: config.httpHeadersTimeoutMs,
      requestTimeout: config.httpRequestTimeoutMs,
      keepAliveTimeout: config.httpKeepAliveTimeoutMs,
      connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS,
      // Node would answer a missing Host with a bare 400; the app refuses it in the envelope instead
      // (refuseUnmetRequests).
      requireHostHeader: false,
    },
    // Koa's handler settles its own errors (errorHandler, then app.onerror); nothing to await here.
    (request, response) => void handle(request, response),
  );
  // Likewise an `Expect` Node cannot meet, which it would answer with a bare 417.
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    server.emit('request', request, response);
  });
  // No listener would close the socket without a word: this service is no proxy, and says so.
  server.on('connect', (request: IncomingMessage, socket: Duplex) => {
    const given = request.headers['x-request-id'];
    const requestId = typeof given === 'string' && ACCEPTABLE_REQUEST_ID.test(given) ? given : randomUUID();
    const refusal = malformedRequest('CONNECT is not served: this service is not a proxy.');
    logger.info({ request_id: requestId, status: refusal.status, code: refusal.code, method: 'CONNECT' }, 'request refused before routing');
    socket.on('error', () => socket.destroy());
    socket.end(renderRawResponse(refusal, requestId), () => socket.destroy());
  });
  // The exchange a socket is in now. A timeout while its request is still arriving is answered in its
  // place (under the request id the access log has), if nothing of its response went out yet; a bad
  // request pipelined behind a complete one is answered after that one's response.
  const current = new WeakMap<Duplex, { request: IncomingMessage; response: ServerResponse }>();
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    current.set(request.socket, { request, response });
    response.once('finish', () => current.delete(request.socket));
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const refusal = refusalFor(error.code);
    const exchange = current.get(socket);
    if (refusal === undefined || !socket.writable || exchange?.response.headersSent === true) {
      socket.destroy();
      return;
    }
    const answer = (requestId: string): void => {
      logger.info({ request_id: requestId, status: refusal.status, code: refusal.code, parser_code: error.code }, 'request refused before routing');
      socket.end(renderRawResponse(refusal, requestId), () => socket.destroy());
    };
    if (exchange === undefined) {
      answer(randomUUID());
    } else if (exchange.request.complete) {
      exchange.response.once('finish', () => answer(randomUUID()));
    } else {
      const given = exchange.response.getHeader('x-request-id');
      answer(typeof given === 'string' ? given : randomUUID());
    }
  });
  return server;
};

const refusalFor = (code: string | undefined): AppError | undefined => {
  switch (code) {
    case 'ECONNRESET':
    case 'EPIPE':
      // The client is gone: nobody to answer.
      return undefined;
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return requestTimeout();
    case 'HPE_HEADER_OVERFLOW':
      return headersTooLarge();
    default:
      return malformedRequest();
  }
};

const REASONS: Readonly<Record<number, string>> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

/** The parser is out of step with the stream, so the answer is written by hand and the connection closed. */
const renderRawResponse = (error: AppError, requestId: string): string => {
  const body = JSON.stringify({
    error: { message: error.message, status_code: error.status, details: { code: error.code, ...error.details }, request_id: requestId },
  });
  return [
    `HTTP/1.1 ${error.status} ${REASONS[error.status] ?? 'Error'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Cache-Control: no-store',
    'X-Content-Type-Options: nosniff',
    `X-Request-ID: ${requestId}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
};
