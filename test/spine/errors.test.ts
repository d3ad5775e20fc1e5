import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import Router from '@koa/router';
import test from 'ava';
import Koa from 'koa';
import { z } from 'zod';
import type { AppState } from '../../api/AppState.ts';
import { errorHandler } from '../../api/middleware/errorHandler.ts';
import { jsonBody } from '../../api/middleware/jsonBody.ts';
import { requestId } from '../../api/middleware/requestId.ts';
import { validateBody } from '../../api/middleware/validate.ts';
import { createLogger } from '../../shared/logger.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let app: TestApp;
// The real middleware chain on a bare app, so the body and crash paths can be driven directly.
let probeUrl: string;
let probeLogs: string[];
let closeProbe: () => Promise<void>;

test.before(async () => {
  app = await startTestApp();

  probeLogs = [];
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => probeLogs.push(chunk.toString('utf8')));
  const logger = createLogger('info', 'probe', stream);
  const probe = new Koa<AppState>();
  probe.silent = true;
  const router = new Router<AppState>();
  router.post('/echo', jsonBody(), validateBody(z.strictObject({ name: z.string().min(1), count: z.number().int().optional() })), (ctx) => {
    ctx.body = { received: (ctx.state as AppState & { input: unknown }).input };
  });
  router.get('/crash', () => {
    const error = new Error('duplicate key value violates "accounts" in SELECT password FROM secrets');
    throw error;
  });
  probe.use(requestId());
  probe.use(errorHandler(logger, () => false));
  probe.use(router.routes());
  const server = probe.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  probeUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  closeProbe = () => new Promise<void>((resolve) => server.close(() => resolve()));
});

test.after.always(async () => {
  await app?.close();
  await closeProbe?.();
});

const errorOf = async (response: Response): Promise<{ message: string; status_code: number; details: Record<string, unknown>; request_id: string }> =>
  ((await response.json()) as { error: { message: string; status_code: number; details: Record<string, unknown>; request_id: string } }).error;

test('a well-formed caller X-Request-ID is echoed in the header', async (t) => {
  const response = await fetch(`${app.url}/health`, { headers: { 'X-Request-ID': 'trace:abc-123_4.5' } });
  t.is(response.headers.get('x-request-id'), 'trace:abc-123_4.5');
});

test('a malformed or overlong X-Request-ID is replaced by a fresh UUID', async (t) => {
  for (const given of ['has space', 'x'.repeat(129), 'semi;colon', '']) {
    const response = await fetch(`${app.url}/health`, { headers: { 'X-Request-ID': given } });
    const header = response.headers.get('x-request-id') ?? '';
    t.regex(header, UUID, JSON.stringify(given));
  }
});

test('an unknown route answers 404 not_found with error.request_id equal to the X-Request-ID header', async (t) => {
  const response = await fetch(`${app.url}/v1/nothing-here`);
  t.is(response.status, 404);
  const error = await errorOf(response);
  t.is(error.status_code, 404);
  t.is(error.details.code, 'not_found');
  t.is(error.request_id, response.headers.get('x-request-id') ?? '');
  t.regex(error.request_id, UUID);
});

test('a known path with the wrong method answers 405 method_not_allowed with an Allow header', async (t) => {
  const response = await fetch(`${app.url}/health`, { method: 'DELETE' });
  t.is(response.status, 405);
  t.deepEqual(
    (response.headers.get('allow') ?? '').split(/,\s*/).sort(),
    ['GET', 'HEAD'],
  );
  t.is((await errorOf(response)).details.code, 'method_not_allowed');
});

test('a body that is not JSON answers 400 invalid_json', async (t) => {
  const response = await fetch(`${probeUrl}/echo`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"name": "a",' });
  t.is(response.status, 400);
  t.is((await errorOf(response)).details.code, 'invalid_json');
});

test('a body over 16 KiB answers 413 payload_too_large', async (t) => {
  const response = await fetch(`${probeUrl}/echo`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'x'.repeat(16 * 1024) }),
  });
  t.is(response.status, 413);
  t.is((await errorOf(response)).details.code, 'payload_too_large');
});

test('a chunked body that grows past 16 KiB answers 413 too', async (t) => {
  const chunks = [JSON.stringify({ name: 'y'.repeat(10_000) }).slice(0, -2), 'y'.repeat(10_000), '"}'];
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) {
        controller.enqueue(new TextEncoder().encode(chunk));
      }
      controller.close();
    },
  });
  const response = await fetch(`${probeUrl}/echo`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body, duplex: 'half' });
  t.is(response.status, 413);
});

test('a POST body that is not application/json answers 415 unsupported_media_type', async (t) => {
  const response = await fetch(`${probeUrl}/echo`, { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: 'name=a' });
  t.is(response.status, 415);
  t.is((await errorOf(response)).details.code, 'unsupported_media_type');
});

test('a body failing the schema answers 422 validation_failed naming each issue, unknown fields included', async (t) => {
  const response = await fetch(`${probeUrl}/echo`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: '', count: 1.5, colour: 'red' }),
  });
  t.is(response.status, 422);
  const error = await errorOf(response);
  t.is(error.details.code, 'validation_failed');
  const paths = (error.details.issues as { path: string; message: string }[]).map((issue) => issue.path).sort();
  t.deepEqual(paths, ['colour', 'count', 'name']);
});

test('a valid JSON body reaches the handler parsed and typed', async (t) => {
  const response = await fetch(`${probeUrl}/echo`, { method: 'POST', headers: { 'Content-Type': 'application/json; charset=utf-8' }, body: '{"name":"ok","count":2}' });
  t.is(response.status, 200);
  t.deepEqual(await response.json(), { received: { name: 'ok', count: 2 } });
});

test('an unexpected error answers 500 internal_error with no internals in the body or the log', async (t) => {
  const response = await fetch(`${probeUrl}/crash`);
  t.is(response.status, 500);
  const text = await response.text();
  t.notRegex(text, /SELECT|secrets|duplicate|at .*\.ts/);
  const { error } = JSON.parse(text) as { error: { details: { code: string }; message: string } };
  t.is(error.details.code, 'internal_error');
  const logged = probeLogs.join('');
  t.regex(logged, /request failed/);
  t.notRegex(logged, /\.ts:\d+/, 'no stack trace is logged');
});
