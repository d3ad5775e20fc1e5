import test, { type ExecutionContext } from 'ava';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { eventually } from '../helpers/eventually.ts';
import { openSocket, readUntilClosed, sendRaw, type RawResponse } from '../helpers/rawHttp.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { postSimulation } from '../simulations/postSimulation.ts';

// Short timeouts so the slow-client cases finish quickly; they are configuration (README).
let app: TestApp;
let key: string;

test.before(async () => {
  app = await startTestApp({ env: { HTTP_HEADERS_TIMEOUT_MS: '500', HTTP_REQUEST_TIMEOUT_MS: '1000' } });
  const account = await buildAccount(app.services.pool);
  ({ key } = await buildApiKey(app.services.pool, account.id));
});

test.after.always(async () => {
  await app?.close();
});

/** The error envelope with a request id, in a response that closes the connection. */
const assertRefusal = (t: ExecutionContext, response: RawResponse, status: number, code: string): void => {
  t.is(response.status, status);
  t.regex(response.headers['content-type'] ?? '', /^application\/json/);
  t.is(response.headers.connection, 'close');
  const requestId = response.headers['x-request-id'];
  t.truthy(requestId);
  t.is(response.headers['x-content-type-options'], 'nosniff');
  t.is(response.headers['cache-control'], 'no-store');
  const body = JSON.parse(response.body) as { error: { status_code: number; details: { code: string }; request_id: string; message: string } };
  t.is(body.error.status_code, status);
  t.is(body.error.details.code, code);
  t.is(body.error.request_id, requestId ?? 'missing header');
  t.is(typeof body.error.message, 'string');
};

const PARSER_REFUSALS: ReadonlyArray<{ title: string; request: string; status: number; code: string }> = [
  { title: 'a bare CR inside a header value', request: 'GET /health HTTP/1.1\r\nHost: a\r\nX-Note: one\rtwo\r\n\r\n', status: 400, code: 'malformed_request' },
  { title: 'a bare LF line ending inside the headers', request: 'GET /health HTTP/1.1\r\nHost: a\r\nX-Note: one\ntwo: three\r\n\r\n', status: 400, code: 'malformed_request' },
  { title: 'a NUL byte in a header value', request: 'GET /health HTTP/1.1\r\nHost: a\r\nX-Note: one\u0000two\r\n\r\n', status: 400, code: 'malformed_request' },
  { title: 'a 64 KB header', request: `GET /health HTTP/1.1\r\nHost: a\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`, status: 431, code: 'headers_too_large' },
  { title: 'an unknown method', request: 'FROB /health HTTP/1.1\r\nHost: a\r\n\r\n', status: 400, code: 'malformed_request' },
  {
    title: 'Content-Length beside Transfer-Encoding',
    request: 'POST /v1/api-keys HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    status: 400,
    code: 'malformed_request',
  },
  {
    title: 'two different Content-Lengths',
    request: 'POST /v1/api-keys HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
    status: 400,
    code: 'malformed_request',
  },
];

for (const { title, request, status, code } of PARSER_REFUSALS) {
  test(`a request Node's parser refuses is answered ${status} ${code} in the envelope: ${title}`, async (t) => {
    assertRefusal(t, await sendRaw(app.url, request), status, code);
  });
}

const UNMET_REQUESTS: ReadonlyArray<{ title: string; request: string; status: number; code: string }> = [
  { title: 'an HTTP/1.1 request without Host', request: 'GET /health HTTP/1.1\r\n\r\n', status: 400, code: 'malformed_request' },
  { title: 'an Expect other than 100-continue', request: 'GET /health HTTP/1.1\r\nHost: a\r\nExpect: foo\r\n\r\n', status: 417, code: 'expectation_failed' },
  { title: 'a CONNECT to host:port', request: 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', status: 400, code: 'malformed_request' },
];

for (const { title, request, status, code } of UNMET_REQUESTS) {
  test(`a request Node would answer bare is answered ${status} ${code} in the envelope with the usual headers: ${title}`, async (t) => {
    assertRefusal(t, await sendRaw(app.url, request), status, code);
  });
}

test('a CONNECT echoes a well-formed caller X-Request-ID in its refusal', async (t) => {
  const response = await sendRaw(app.url, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\nX-Request-ID: tunnel-1\r\n\r\n');
  assertRefusal(t, response, 400, 'malformed_request');
  t.is(response.headers['x-request-id'], 'tunnel-1');
});

test('Expect: 100-continue is still met: the body is asked for and the request answered', async (t) => {
  const socket = await openSocket(app.url);
  const answer = readUntilClosed(socket);
  socket.write('GET /health HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n');
  const response = await answer;
  t.is(response.status, 100);
  t.regex(response.body, /HTTP\/1\.1 200 /);
});

test('a refusal after a keep-alive exchange on the same connection is still answered in the envelope', async (t) => {
  const socket = await openSocket(app.url);
  const answer = readUntilClosed(socket);
  socket.write('GET /health HTTP/1.1\r\nHost: a\r\n\r\n');
  socket.write('FROB /health HTTP/1.1\r\nHost: a\r\n\r\n');
  const text = await answer;
  // The first answer is the 200 of /health; the envelope follows it on the same connection.
  t.is(text.status, 200);
  const second = text.body.slice(text.body.indexOf('HTTP/1.1 '));
  t.regex(second, /^HTTP\/1\.1 400 /);
  t.regex(second, /"code":"malformed_request"/);
});

test('headers that never finish are answered 408 request_timeout and the connection closed', async (t) => {
  const socket = await openSocket(app.url);
  const answer = readUntilClosed(socket);
  socket.write('GET /health HTTP/1.1\r\nHost: a\r\n');
  assertRefusal(t, await answer, 408, 'request_timeout');
});

test('a body that stops half-way is answered 408 request_timeout under the request id the access log has', async (t) => {
  const socket = await openSocket(app.url);
  const answer = readUntilClosed(socket);
  socket.write(
    [
      'POST /v1/api-keys HTTP/1.1',
      'Host: a',
      `Authorization: Bearer ${key}`,
      'Content-Type: application/json',
      'Content-Length: 100',
      'X-Request-ID: slow-body-1',
      '',
      '{"name":',
    ].join('\r\n'),
  );
  const response = await answer;
  assertRefusal(t, response, 408, 'request_timeout');
  t.is(response.headers['x-request-id'], 'slow-body-1');
  // The handler waiting on the body learns of it as an abort, not as an error of the service.
  const logs = await eventually(() => (app.logs().includes('"request_id":"slow-body-1","msg":"client closed the connection mid-request"') ? app.logs() : undefined));
  t.notRegex(logs, /"level":50[^\n]*slow-body-1/);
});

test('the request timeout bounds receiving a request, not answering it: a run longer than it still gets its own answer', async (t) => {
  // No worker: the run waits in the queue until its deadline, well past the 1 s request timeout.
  const slow = await startTestApp({ database: app.database, env: { HTTP_HEADERS_TIMEOUT_MS: '500', HTTP_REQUEST_TIMEOUT_MS: '1000', SIMULATION_TIMEOUT_MS: '3000' } });
  t.teardown(() => slow.close());
  const account = await buildAccount(slow.services.pool, { plan: 'enterprise' });
  const caller = await buildApiKey(slow.services.pool, account.id);
  const response = await postSimulation(slow, { preset: 'finance', num_interactions: 5, seed: 1 }, { key: caller.key });
  t.is(response.status, 504);
  t.is(response.body.error.details.code, 'simulation_timeout');
});
