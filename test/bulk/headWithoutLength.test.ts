import test from 'ava';
import { buildCaller } from '../helpers/limitFixtures.ts';
import { startTestApp } from '../helpers/startTestApp.ts';
import { startTestWorker } from '../helpers/startTestWorker.ts';
import { sendRequest } from './httpRequest.ts';

// docs/bulk-data.md, resumable downloads: a HEAD is a question about the body and never answers 5xx.

test('a HEAD whose length cannot be measured before the deadline (no worker takes the run) answers 200 with its headers and no Content-Length, not 504', async (t) => {
  const app = await startTestApp({ env: { SIMULATION_TIMEOUT_MS: '4000' } });
  t.teardown(() => app.close());
  const worker = await startTestWorker({ redisPrefix: app.redisPrefix });
  const caller = await buildCaller(app.services.pool, {});
  const headers = { Authorization: `Bearer ${caller.key}` };

  // A run small enough to be answered whole: its length is not kept, a HEAD must measure it.
  const first = await sendRequest(`${app.url}/v1/simulations`, {
    method: 'POST',
    headers: { ...headers, 'Content-Type': 'application/json', Accept: 'text/csv' },
    body: JSON.stringify({ preset: 'finance', num_interactions: 10, seed: 4 }),
  });
  t.is(first.status, 200);
  const id = first.headers['simulation-id']!;
  // No worker from now on: the measuring run waits on the queue until its deadline.
  await worker.close();

  const head = await sendRequest(`${app.url}/v1/simulations/${id}/records`, { method: 'HEAD', headers: { ...headers, Accept: 'text/csv' } });
  t.is(head.status, 200);
  t.is(head.headers['content-length'], undefined);
  t.is(head.headers['content-type'], 'text/csv; charset=utf-8');
  t.is(head.headers['accept-ranges'], 'bytes');
  t.truthy(head.headers.etag);
  t.is(head.headers['simulation-id'], id);
  // The same question with a worker back answers the length.
  const back = await startTestWorker({ redisPrefix: app.redisPrefix });
  t.teardown(() => back.close());
  const measured = await sendRequest(`${app.url}/v1/simulations/${id}/records`, { method: 'HEAD', headers: { ...headers, Accept: 'text/csv' } });
  t.is(measured.status, 200);
  t.is(measured.headers['content-length'], String(first.bytes.length));
  t.is(measured.headers.etag, head.headers.etag);
});
