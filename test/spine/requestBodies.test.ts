import { gzipSync, deflateSync } from 'node:zlib';
import test from 'ava';
import { eventually } from '../helpers/eventually.ts';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { openSocket } from '../helpers/rawHttp.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';

// POST /v1/api-keys is the body-reading route that needs no worker: each case is a real request to it.
let app: TestApp;
let key: string;

test.before(async () => {
  app = await startTestApp();
  // Enterprise: enough active keys for every case here that succeeds.
  const account = await buildAccount(app.services.pool, { plan: 'enterprise' });
  ({ key } = await buildApiKey(app.services.pool, account.id));
});

test.after.always(async () => {
  await app?.close();
});

const postKey = async (body: string | Buffer | undefined, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> => {
  const response = await fetch(`${app.url}/v1/api-keys`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
};

for (const [title, body] of [
  ['an empty body', ''],
  ['a body of whitespace', ' \n\t '],
] as const) {
  test(`${title} declared application/json is 400 invalid_json`, async (t) => {
    const response = await postKey(body);
    t.is(response.status, 400);
    t.is(response.body.error.details.code, 'invalid_json');
  });
}

test('a body with an unsupported Content-Encoding is 415 unsupported_media_type, not read as plain JSON', async (t) => {
  for (const encoding of ['br', 'compress', 'gzip, br']) {
    const response = await postKey(JSON.stringify({ name: 'plain' }), { 'Content-Encoding': encoding });
    t.is(response.status, 415, encoding);
    t.is(response.body.error.details.code, 'unsupported_media_type');
  }
});

for (const contentType of ['application/json; charset=utf-16', 'application/json; charset=iso-8859-1', 'application/json; charset="UTF-16LE"']) {
  test(`a body declared ${contentType} is 415 unsupported_media_type, not read as UTF-8`, async (t) => {
    const response = await postKey(JSON.stringify({ name: 'charset' }), { 'Content-Type': contentType });
    t.is(response.status, 415);
    t.is(response.body.error.details.code, 'unsupported_media_type');
  });
}

test('a body declared application/json with charset=utf-8 (any case) or no charset is accepted', async (t) => {
  for (const contentType of ['application/json', 'application/json; charset=utf-8', 'application/json;charset=UTF-8']) {
    t.is((await postKey(JSON.stringify({ name: 'utf8' }), { 'Content-Type': contentType })).status, 201, contentType);
  }
});

test('gzip and deflate bodies are inflated and accepted', async (t) => {
  const gzipped = await postKey(gzipSync(JSON.stringify({ name: 'gzipped key' })), { 'Content-Encoding': 'gzip' });
  t.is(gzipped.status, 201);
  t.is(gzipped.body.name, 'gzipped key');
  const deflated = await postKey(deflateSync(JSON.stringify({ name: 'deflated key' })), { 'Content-Encoding': 'deflate' });
  t.is(deflated.status, 201);
  t.is(deflated.body.name, 'deflated key');
});

test('the body limit applies to the inflated size: a small body inflating past 16 KiB is 413', async (t) => {
  const justOver = gzipSync(JSON.stringify({ name: 'x'.repeat(16 * 1024) }));
  t.true(justOver.length < 16 * 1024);
  const response = await postKey(justOver, { 'Content-Encoding': 'gzip' });
  t.is(response.status, 413);
  t.is(response.body.error.details.code, 'payload_too_large');
});

test('a zip bomb sent chunked (no length to refuse it by) is 413 once 16 KiB are inflated', async (t) => {
  // 1 GiB of spaces: about 1 MB compressed, streamed so the server sees no Content-Length.
  const block = gzipSync(Buffer.alloc(64 * 1024 * 1024, ' '));
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent === 16) {
        controller.close();
        return;
      }
      sent += 1;
      controller.enqueue(block);
    },
  });
  const answer = await fetch(`${app.url}/v1/api-keys`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
    body,
    duplex: 'half',
  });
  t.is(answer.status, 413);
  t.is(((await answer.json()) as any).error.details.code, 'payload_too_large');
});

test('bytes that do not inflate are 400 invalid_json', async (t) => {
  const response = await postKey('not gzip at all', { 'Content-Encoding': 'gzip' });
  t.is(response.status, 400);
  t.is(response.body.error.details.code, 'invalid_json');
});

test('a client hanging up mid-body is logged as a client abort, not as an error of the service', async (t) => {
  const socket = await openSocket(app.url);
  const received: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => received.push(chunk));
  const head = ['POST /v1/api-keys HTTP/1.1', 'Host: a', `Authorization: Bearer ${key}`, 'Content-Type: application/json', 'Content-Length: 100', 'Expect: 100-continue', 'X-Request-ID: hang-up-1'];
  socket.write(`${head.join('\r\n')}\r\n\r\n`);
  // Node answers 100 Continue as it hands the request to the app: from then on the app owns its body.
  await eventually(() => (Buffer.concat(received).toString('latin1').startsWith('HTTP/1.1 100 Continue') ? true : undefined));
  socket.write('{"na');
  socket.destroy();
  const logs = await eventually(() => {
    const text = app.logs();
    return /"request_id":"hang-up-1"[^\n]*"msg":"request"/.test(text) ? text : undefined;
  });
  const lines = logs.split('\n').filter((line) => line.includes('hang-up-1'));
  t.true(lines.some((line) => line.includes('"level":30') && line.includes('client closed the connection mid-request')));
  t.false(lines.some((line) => line.includes('"level":50')));
  t.false(lines.some((line) => line.includes('service_unavailable')));
});
