import type { Middleware } from 'koa';
import { expectationFailed, malformedRequest } from '../../shared/errors/errors.ts';
import type { AppState } from '../AppState.ts';

// The test Node's parser applies before it calls 'checkExpectation' (lib/_http_server.js).
const CONTINUE = /(?:^|\W)100-continue(?:$|\W)/i;

/**
 * Requests Node's parser would otherwise answer itself with a bare status and no headers (a missing
 * `Host`, an `Expect` it cannot meet): createHttpServer lets them through so they are refused here, in
 * the envelope and under a request id (docs/errors.md). The connection is closed after such an answer,
 * since a body may follow that nobody reads.
 */
export const refuseUnmetRequests = (): Middleware<AppState> =>
  async function refuseUnmetRequests(ctx, next) {
    const { httpVersionMajor, httpVersionMinor, headers } = ctx.req;
    // RFC 9112 §3.2: an HTTP/1.1 request without Host is answered 400.
    if (httpVersionMajor === 1 && httpVersionMinor === 1 && headers.host === undefined) {
      ctx.set('Connection', 'close');
      throw malformedRequest('An HTTP/1.1 request must carry a Host header.');
    }
    const expect = headers.expect;
    if (expect !== undefined && !CONTINUE.test(expect)) {
      throw expectationFailed();
    }
    await next();
  };
