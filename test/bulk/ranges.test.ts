import test from 'ava';
import { buildCaller } from '../helpers/limitFixtures.ts';
import type { TestApp } from '../helpers/startTestApp.ts';
import { useFileStack } from '../helpers/useFileStack.ts';
import { decodeBody } from './decodeBody.ts';
import { type HttpAnswer, sendRequest } from './httpRequest.ts';

let app: TestApp;
useFileStack(test, (started) => {
  app = started;
});

const caller = () => buildCaller(app.services.pool, { requests_per_minute: 1000, max_concurrent_simulations: 4, max_interactions_per_request: 100_000 });

const postRun = async (key: string, accept: string, numInteractions: number): Promise<HttpAnswer> => {
  const answer = await sendRequest(`${app.url}/v1/simulations`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}`, Accept: accept },
    body: JSON.stringify({ preset: 'finance', num_interactions: numInteractions, seed: 5 }),
  });
  if (answer.status !== 200) {
    throw new Error(`POST answered ${answer.status}: ${answer.bytes.toString()}`);
  }
  return answer;
};

const records = (key: string, id: string, headers: Record<string, string> = {}, method = 'GET'): Promise<HttpAnswer> =>
  sendRequest(`${app.url}/v1/simulations/${id}/records`, { method, headers: { Authorization: `Bearer ${key}`, ...headers } });

/** Runs the engine made for this app (every run, a replay too, passes the simulation client). */
const engineRuns = async (): Promise<number> => (await app.services.metrics.simulations.get()).values.reduce((sum, value) => sum + value.value, 0);

test('a replay is resumable: Accept-Ranges, a strong ETag, and Range N-, N-M and -S answer 206 with exactly that slice of the whole body', async (t) => {
  const me = await caller();
  const first = await postRun(me.key, 'application/x-ndjson', 20_000);
  const id = first.headers['simulation-id']!;
  const whole = await records(me.key, id, { Accept: 'application/x-ndjson' });
  t.is(whole.status, 200);
  t.true(whole.bytes.equals(first.bytes), 'the replay is the first answer, byte for byte');
  t.is(whole.headers['accept-ranges'], 'bytes');
  const tag = whole.headers.etag!;
  t.regex(tag, /^"[^"]+"$/, 'a strong tag');
  const total = whole.bytes.length;
  t.true(total > 1024 * 1024);

  const cases: readonly [string, number, number][] = [
    ['bytes=1000000-', 1_000_000, total - 1],
    ['bytes=5-99', 5, 99],
    ['bytes=0-0', 0, 0],
    [`bytes=${total - 10}-${total + 500}`, total - 10, total - 1],
    ['bytes=-300', total - 300, total - 1],
  ];
  for (const [range, from, to] of cases) {
    const part = await records(me.key, id, { Accept: 'application/x-ndjson', Range: range });
    t.is(part.status, 206, range);
    t.is(part.headers['content-range'], `bytes ${from}-${to}/${total}`, range);
    t.is(part.headers['content-length'], String(to - from + 1), range);
    t.is(part.headers.etag, tag, range);
    t.true(part.bytes.equals(whole.bytes.subarray(from, to + 1)), `${range}: not that slice of the body`);
  }
});

test('If-Range with the current tag serves the range; with another tag or a date it answers 200 with the whole body', async (t) => {
  const me = await caller();
  const first = await postRun(me.key, 'text/csv', 3000);
  const id = first.headers['simulation-id']!;
  const whole = await records(me.key, id, { Accept: 'text/csv' });
  const tag = whole.headers.etag!;
  const guarded = await records(me.key, id, { Accept: 'text/csv', Range: 'bytes=100-', 'If-Range': tag });
  t.is(guarded.status, 206);
  t.true(guarded.bytes.equals(whole.bytes.subarray(100)));
  for (const validator of ['"another"', 'Tue, 24 Nov 2026 10:00:00 GMT']) {
    const stale = await records(me.key, id, { Accept: 'text/csv', Range: 'bytes=100-', 'If-Range': validator });
    t.is(stale.status, 200, validator);
    t.is(stale.headers['content-range'], undefined);
    t.true(stale.bytes.equals(whole.bytes), validator);
  }
});

test('a range past the end answers 416 range_not_satisfiable with Content-Range bytes */total', async (t) => {
  const me = await caller();
  const first = await postRun(me.key, 'application/x-ndjson', 200);
  const id = first.headers['simulation-id']!;
  for (const range of [`bytes=${first.bytes.length}-`, `bytes=${first.bytes.length + 10}-${first.bytes.length + 20}`, 'bytes=-0']) {
    const refused = await records(me.key, id, { Accept: 'application/x-ndjson', Range: range });
    t.is(refused.status, 416, range);
    t.is(refused.headers['content-range'], `bytes */${first.bytes.length}`);
    t.is(refused.json.error.details.code, 'range_not_satisfiable');
    t.is(refused.headers['content-encoding'], undefined);
  }
  // Several ranges, another unit, nonsense: a server may ignore Range, and this one answers the whole body.
  for (const range of ['bytes=0-1,5-6', 'items=0-5', 'bytes=9-3']) {
    const whole = await records(me.key, id, { Accept: 'application/x-ndjson', Range: range });
    t.is(whole.status, 200, range);
    t.true(whole.bytes.equals(first.bytes));
  }
});

test.serial('HEAD answers the length, ETag and headers of the body; once a body was whole, HEAD and ranges run the engine no more for its length', async (t) => {
  const me = await caller();
  // Posted as CSV: the NDJSON body's length is not known yet.
  const first = await postRun(me.key, 'text/csv', 5000);
  const id = first.headers['simulation-id']!;

  const before = await engineRuns();
  const probe = await records(me.key, id, { Accept: 'application/x-ndjson' }, 'HEAD');
  t.is(probe.status, 200);
  t.is(probe.bytes.length, 0);
  t.is(probe.headers['accept-ranges'], 'bytes');
  t.is(probe.headers['simulation-id'], id);
  t.is(await engineRuns(), before + 1, 'an unknown length is measured once');
  const whole = await records(me.key, id, { Accept: 'application/x-ndjson' });
  t.is(probe.headers['content-length'], String(whole.bytes.length));
  t.is(await engineRuns(), before + 2);

  const again = await records(me.key, id, { Accept: 'application/x-ndjson' }, 'HEAD');
  t.is(again.headers['content-length'], String(whole.bytes.length));
  t.is(again.headers.etag, probe.headers.etag);
  const suffix = await records(me.key, id, { Accept: 'application/x-ndjson', Range: 'bytes=-10' }, 'HEAD');
  t.is(suffix.status, 206);
  t.is(suffix.headers['content-range'], `bytes ${whole.bytes.length - 10}-${whole.bytes.length - 1}/${whole.bytes.length}`);
  t.is(await engineRuns(), before + 2, 'the remembered length answers');

  const tail = await records(me.key, id, { Accept: 'application/x-ndjson', Range: 'bytes=-10' });
  t.true(tail.bytes.equals(whole.bytes.subarray(-10)));
  t.is(await engineRuns(), before + 3, 'a range runs the engine once');
});

test.serial("a streamed run's first answer leaves its length: HEAD, an open-ended range and If-Range of its replays answer without making the run again", async (t) => {
  const me = await caller();
  const first = await postRun(me.key, 'application/x-ndjson', 5000);
  const id = first.headers['simulation-id']!;

  const before = await engineRuns();
  const probe = await records(me.key, id, { Accept: 'application/x-ndjson' }, 'HEAD');
  t.is(probe.status, 200);
  t.is(probe.headers['content-length'], String(first.bytes.length));
  t.truthy(probe.headers.etag);
  const open = await records(me.key, id, { Accept: 'application/x-ndjson', Range: 'bytes=100-', 'If-Range': probe.headers.etag! }, 'HEAD');
  t.is(open.status, 206);
  t.is(open.headers['content-range'], `bytes 100-${first.bytes.length - 1}/${first.bytes.length}`);
  t.is(await engineRuns(), before, 'no run made to learn a length the first answer gave');
  // The range itself is made once, and is that slice of the first answer.
  const slice = await records(me.key, id, { Accept: 'application/x-ndjson', Range: 'bytes=100-', 'If-Range': probe.headers.etag! });
  t.is(slice.status, 206);
  t.true(slice.bytes.equals(first.bytes.subarray(100)));
  t.is(await engineRuns(), before + 1);
});

test.serial("HEADs at once for a length not known yet share one run: all 200 with the same length, never a 5xx under the caller's own concurrency", async (t) => {
  const me = await caller();
  // Posted as NDJSON; the CSV body's length is unknown until measured.
  const first = await postRun(me.key, 'application/x-ndjson', 5000);
  const id = first.headers['simulation-id']!;

  const before = await engineRuns();
  // As many as the caller's concurrency allows: each holds a slot while it waits.
  const heads = await Promise.all(Array.from({ length: 4 }, () => records(me.key, id, { Accept: 'text/csv' }, 'HEAD')));
  t.deepEqual(
    heads.map((head) => head.status),
    [200, 200, 200, 200],
  );
  t.is(new Set(heads.map((head) => head.headers['content-length'])).size, 1);
  t.is(await engineRuns(), before + 1, 'one measurement for all of them');
  const whole = await records(me.key, id, { Accept: 'text/csv' });
  t.is(heads[0]?.headers['content-length'], String(whole.bytes.length));
});

test('a JSON replay states the recorded compute_ms, so it is the first answer byte for byte and its ranges hold', async (t) => {
  const me = await caller();
  const first = await postRun(me.key, 'application/json', 4000);
  const id = first.json.simulation_id;
  const replays = [await records(me.key, id, { Accept: 'application/json' }), await records(me.key, id, { Accept: 'application/json' })];
  for (const replay of replays) {
    t.true(replay.bytes.equals(first.bytes), 'byte-identical to the first answer');
  }
  const part = await records(me.key, id, { Accept: 'application/json', Range: `bytes=${first.bytes.length - 40}-` });
  t.is(part.status, 206);
  t.is(part.bytes.toString(), first.bytes.subarray(-40).toString());
});

test('a coded replay has a tag of its own and ranges over the coded bytes; each format and coding has its own tag', async (t) => {
  const me = await caller();
  const first = await postRun(me.key, 'application/x-ndjson', 20_000);
  const id = first.headers['simulation-id']!;
  const tags = new Set<string>();
  for (const coding of ['gzip', 'br', 'zstd']) {
    const whole = await records(me.key, id, { Accept: 'application/x-ndjson', 'Accept-Encoding': coding });
    t.is(whole.headers['content-encoding'], coding);
    t.is(whole.headers.vary, 'Accept, Accept-Encoding');
    t.true(decodeBody(whole.bytes, coding).equals(first.bytes));
    const from = Math.floor(whole.bytes.length / 2);
    const part = await records(me.key, id, { Accept: 'application/x-ndjson', 'Accept-Encoding': coding, Range: `bytes=${from}-`, 'If-Range': whole.headers.etag! });
    t.is(part.status, 206, coding);
    t.is(part.headers['content-range'], `bytes ${from}-${whole.bytes.length - 1}/${whole.bytes.length}`);
    t.true(Buffer.concat([whole.bytes.subarray(0, from), part.bytes]).equals(whole.bytes), `${coding}: the coded bytes of a resumed download differ`);
    tags.add(whole.headers.etag!);
  }
  tags.add((await records(me.key, id, { Accept: 'application/x-ndjson' }, 'HEAD')).headers.etag!);
  tags.add((await records(me.key, id, { Accept: 'text/csv' }, 'HEAD')).headers.etag!);
  t.is(tags.size, 5);
});

test('a ranged replay counts in the rate window like any replay', async (t) => {
  const me = await buildCaller(app.services.pool, { requests_per_minute: 3 });
  const first = await postRun(me.key, 'application/x-ndjson', 100);
  const id = first.headers['simulation-id']!;
  const part = await records(me.key, id, { Accept: 'application/x-ndjson', Range: 'bytes=10-' });
  t.is(part.status, 206);
  t.regex(part.headers.ratelimit ?? '', /r=1;/);
  t.is((await records(me.key, id, { Accept: 'application/x-ndjson' }, 'HEAD')).status, 200);
  const refused = await records(me.key, id, { Accept: 'application/x-ndjson', Range: 'bytes=10-' });
  t.is(refused.status, 429);
  t.is(refused.json.error.details.code, 'rate_limit_exceeded');
});
