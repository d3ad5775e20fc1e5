import test from 'ava';
import { chooseEncoding } from '../../api/bulk/chooseEncoding.ts';
import { buildCaller } from '../helpers/limitFixtures.ts';
import type { TestApp } from '../helpers/startTestApp.ts';
import { useFileStack } from '../helpers/useFileStack.ts';
import { decodeBody } from './decodeBody.ts';
import { sendRequest } from './httpRequest.ts';

let app: TestApp;
useFileStack(test, (started) => {
  app = started;
});

const TEXT_FORMATS = [
  { accept: 'application/json', type: 'application/json; charset=utf-8' },
  { accept: 'application/x-ndjson', type: 'application/x-ndjson' },
  { accept: 'text/csv', type: 'text/csv; charset=utf-8' },
] as const;
const CODINGS = ['gzip', 'br', 'zstd'] as const;

// Two runs of one request differ in their simulation id and compute_ms (a measurement), and nowhere else.
const blurComputeMs = (bytes: Buffer): string =>
  bytes.toString('utf8').replace(/"compute_ms":\d+/, '"compute_ms":0').replace(/"simulation_id":"[^"]+"/, '"simulation_id":""');

const post = (key: string, headers: Record<string, string>, numInteractions = 3000, seed = 11) =>
  sendRequest(`${app.url}/v1/simulations`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}`, ...headers },
    body: JSON.stringify({ preset: 'finance', num_interactions: numInteractions, seed }),
  });

test('POST /v1/simulations codes JSON, NDJSON and CSV in gzip, br and zstd as Accept-Encoding asks, the decoded bytes those of the uncoded answer', async (t) => {
  const me = await buildCaller(app.services.pool, { requests_per_minute: 1000, max_concurrent_simulations: 4 });
  for (const format of TEXT_FORMATS) {
    const plain = await post(me.key, { Accept: format.accept });
    t.is(plain.status, 200);
    t.is(plain.headers['content-encoding'], undefined);
    t.is(plain.headers.vary, 'Accept, Accept-Encoding');
    for (const coding of CODINGS) {
      const coded = await post(me.key, { Accept: format.accept, 'Accept-Encoding': coding });
      t.is(coded.status, 200, `${format.accept} ${coding}`);
      t.is(coded.headers['content-encoding'], coding);
      t.is(coded.headers['content-type'], format.type);
      t.is(coded.headers.vary, 'Accept, Accept-Encoding');
      t.true(coded.bytes.length < plain.bytes.length / 2, `${format.accept} ${coding}: ${coded.bytes.length} of ${plain.bytes.length} bytes`);
      t.true(blurComputeMs(decodeBody(coded.bytes, coding)) === blurComputeMs(plain.bytes), `${format.accept} ${coding}: the decoded body differs`);
    }
  }
});

test('a streamed run of several blocks is coded as it is made and decodes whole; the same run codes to the same bytes every time', async (t) => {
  const me = await buildCaller(app.services.pool, { requests_per_minute: 1000, max_concurrent_simulations: 4 });
  const plain = await post(me.key, { Accept: 'application/x-ndjson' }, 40_000);
  t.true(plain.bytes.length > 1024 * 1024, 'several 256 KiB blocks');
  const first = await post(me.key, { Accept: 'application/x-ndjson', 'Accept-Encoding': 'zstd' }, 40_000);
  const second = await post(me.key, { Accept: 'application/x-ndjson', 'Accept-Encoding': 'zstd' }, 40_000);
  t.true(decodeBody(first.bytes, 'zstd').equals(plain.bytes));
  t.true(first.bytes.equals(second.bytes), 'a coding flushed at fixed offsets of the records makes the same bytes');
});

test('Parquet is never coded, whatever Accept-Encoding says', async (t) => {
  const me = await buildCaller(app.services.pool, { requests_per_minute: 1000 });
  const answer = await post(me.key, { Accept: 'application/vnd.apache.parquet', 'Accept-Encoding': 'gzip, br, zstd' }, 500);
  t.is(answer.status, 200);
  t.is(answer.headers['content-encoding'], undefined);
  t.is(answer.bytes.subarray(0, 4).toString(), 'PAR1');
});

test('quality values decide the coding; ties go to zstd, then br, then gzip; identity when nothing coded is acceptable', (t) => {
  t.is(chooseEncoding(undefined), 'identity');
  t.is(chooseEncoding(''), 'identity');
  t.is(chooseEncoding('gzip, deflate'), 'gzip');
  t.is(chooseEncoding('gzip, br, zstd'), 'zstd');
  t.is(chooseEncoding('gzip;q=0.5, br;q=0.9'), 'br');
  t.is(chooseEncoding('zstd;q=0, gzip'), 'gzip');
  t.is(chooseEncoding('gzip;q=0.5'), 'gzip', 'unlisted identity is acceptable, at the lowest listed quality');
  t.is(chooseEncoding('gzip;q=0.5, identity'), 'identity');
  t.is(chooseEncoding('*'), 'zstd');
  t.is(chooseEncoding('*;q=0.2, br;q=0'), 'zstd');
  t.is(chooseEncoding('identity'), 'identity');
  t.is(chooseEncoding('deflate, compress'), 'identity');
  t.is(chooseEncoding('GZIP ; Q=1'), 'gzip');
});

test('an answer coded with the quality values of the header: gzip;q=0.5, br;q=0.9 gets br', async (t) => {
  const me = await buildCaller(app.services.pool, { requests_per_minute: 1000 });
  const answer = await post(me.key, { Accept: 'text/csv', 'Accept-Encoding': 'gzip;q=0.5, br;q=0.9, zstd;q=0' }, 200);
  t.is(answer.headers['content-encoding'], 'br');
  t.regex(decodeBody(answer.bytes, 'br').toString(), /^sequence_id,interaction_id,event_time,state,/);
});
