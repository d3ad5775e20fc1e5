import { randomUUID } from 'node:crypto';
import test from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { eventually } from '../helpers/eventually.ts';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import type { TestApp } from '../helpers/startTestApp.ts';
import { connectTestRedis } from '../helpers/testRedis.ts';
import { useFileStack } from '../helpers/useFileStack.ts';
import { accountRunKeys } from '../../api/limits/limitKeys.ts';
import { postSimulation } from '../simulations/postSimulation.ts';
import { getWithKey, insertLedgerRow, walkHistory } from './historyFixtures.ts';

let app: TestApp;
useFileStack(test, (started) => {
  app = started;
});

const caller = async (plan = 'enterprise') => {
  const account = await buildAccount(app.services.pool, { plan });
  const apiKey = await buildApiKey(app.services.pool, account.id);
  return { accountId: account.id, apiKeyId: apiKey.id, key: apiKey.key, keyPrefix: apiKey.key_prefix };
};

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

test('a run made with an API key is listed newest first and found by id, with its inputs, outcome, engine and credential', async (t) => {
  const me = await caller();
  const first = await postSimulation(app, { preset: 'finance', num_interactions: 12, seed: 99 }, { key: me.key });
  const second = await postSimulation(app, { preset: 'mobile', num_interactions: 5 }, { key: me.key });
  t.is(first.status, 200, first.text);
  t.is(second.status, 200, second.text);

  const list = await getWithKey(app, '/v1/simulations', me.key);
  t.is(list.status, 200, list.text);
  t.is(list.headers.get('cache-control'), 'no-store');
  t.deepEqual(
    list.body.data.map((run: any) => run.simulation_id),
    [second.body.simulation_id, first.body.simulation_id],
  );
  t.is(list.body.next_cursor, null);

  const one = await getWithKey(app, `/v1/simulations/${first.body.simulation_id}`, me.key);
  t.is(one.status, 200, one.text);
  t.deepEqual(Object.keys(one.body).sort(), [
    'compute_ms', 'created_at', 'credential', 'finished_at', 'model', 'num_interactions', 'order', 'population', 'preset', 'profile', 'scenario', 'seed', 'service_version', 'simulation_id', 'start_time', 'status',
  ]);
  // A preset run names no model (docs/api.md#run-history-and-replay).
  t.is(one.body.model, null);
  t.like(one.body, {
    simulation_id: first.body.simulation_id,
    preset: 'finance',
    profile: first.body.profile,
    seed: 99,
    num_interactions: 12,
    status: 'completed',
    service_version: first.body.metadata.service_version,
    scenario: null,
    credential: { type: 'api_key', api_key_id: me.apiKeyId, key_prefix: me.keyPrefix },
  });
  t.regex(one.body.created_at, ISO);
  t.regex(one.body.finished_at, ISO);
  t.true(Number.isInteger(one.body.compute_ms) && one.body.compute_ms >= 0);
  t.deepEqual(list.body.data[1], one.body);
  // The alias was recorded as the canonical preset, and the drawn seed as the one used.
  t.like(list.body.data[0], { preset: 'mobile_app', seed: second.body.seed, profile: second.body.profile });
});

test('a run made in a browser session names the session as its credential, and a run still queued has no finish', async (t) => {
  const me = await caller();
  const id = await insertLedgerRow(app.services.pool, me.accountId, { sessionId: randomUUID(), status: 'queued' });
  const one = await getWithKey(app, `/v1/simulations/${id}`, me.key);
  t.is(one.status, 200, one.text);
  t.deepEqual(one.body.credential, { type: 'session' });
  t.like(one.body, { status: 'queued', finished_at: null, compute_ms: null });
});

test('rows written before the ledger kept engine versions read as engine 1.0.0', async (t) => {
  const me = await caller();
  // insertLedgerRow leaves service_version to the column's default, as migration 0008 fills old rows.
  const id = await insertLedgerRow(app.services.pool, me.accountId);
  t.is((await getWithKey(app, `/v1/simulations/${id}`, me.key)).body.service_version, '1.0.0');
  const stored = await app.services.pool.oneFirst(sql.type(z.object({ d: z.string().nullable() }))`
    SELECT column_default AS d FROM information_schema.columns WHERE table_name = 'simulations' AND column_name = 'service_version'
  `);
  t.regex(stored ?? '', /'1\.0\.0'/);
});

test('paging walks every run exactly once, newest first, while new runs are being inserted', async (t) => {
  const me = await caller();
  // 30 runs 1 µs apart (a cursor rounded to the millisecond would repeat or skip them), then 25 that share
  // one instant (one statement's now(), as a group-committed batch): the cursor must split ties by id.
  await app.services.pool.query(sql.type(z.object({}))`
    INSERT INTO simulations (id, account_id, preset, profile, seed, num_interactions, status, period_start, created_at)
    SELECT gen_random_uuid(), ${me.accountId}, 'finance', 'balanced_investor', g, 5, 'completed', date_trunc('month', now()),
      '2026-01-10T12:00:00.000000Z'::timestamptz + make_interval(secs => g / 1000000.0)
    FROM generate_series(1, 30) AS g
  `);
  await app.services.pool.query(sql.type(z.object({}))`
    INSERT INTO simulations (id, account_id, preset, profile, seed, num_interactions, status, period_start, created_at)
    SELECT gen_random_uuid(), ${me.accountId}, 'education', 'fast_accurate', g, 5, 'completed', date_trunc('month', now()), '2026-01-05T00:00:00Z'
    FROM generate_series(1, 25) AS g
  `);
  const before = (await walkHistory(app, me.key, 'limit=100')).map((run) => run.simulation_id);
  t.is(before.length, 55);

  // Writers run while the reader pages: real runs through the API and rows written straight to the ledger.
  let writing = true;
  const inserted: string[] = [];
  const writers = [
    (async () => {
      while (writing) {
        const response = await postSimulation(app, { preset: 'healthcare', num_interactions: 3 }, { key: me.key });
        if (response.status === 200) {
          inserted.push(response.body.simulation_id);
        }
      }
    })(),
    (async () => {
      while (writing) {
        inserted.push(await insertLedgerRow(app.services.pool, me.accountId));
      }
    })(),
  ];
  let walked: any[];
  try {
    walked = await walkHistory(app, me.key, 'limit=4', async () => {
      // Every page waits for at least one new row, so inserts land between every two pages.
      const count = inserted.length;
      await eventually(() => (inserted.length > count ? true : undefined), 10_000, 5);
    });
  } finally {
    writing = false;
    await Promise.all(writers);
  }
  const ids = walked.map((run) => run.simulation_id);
  t.is(new Set(ids).size, ids.length, 'a run was repeated');
  for (const id of before) {
    t.true(ids.includes(id), `run ${id} was skipped`);
  }
  t.true(inserted.length > 0);
  // Newest first throughout: the runs known before paging keep their relative order.
  t.deepEqual(
    ids.filter((id) => before.includes(id)),
    before,
  );
  for (let index = 1; index < walked.length; index += 1) {
    t.true(walked[index - 1].created_at >= walked[index].created_at);
  }
});

test('pages hold `limit` runs (20 by default, 1 to 100) and the last page has no next cursor', async (t) => {
  const me = await caller();
  await app.services.pool.query(sql.type(z.object({}))`
    INSERT INTO simulations (id, account_id, preset, profile, seed, num_interactions, status, period_start)
    SELECT gen_random_uuid(), ${me.accountId}, 'finance', 'growth_investor', g, 5, 'completed', date_trunc('month', now())
    FROM generate_series(1, 101) AS g
  `);
  const first = await getWithKey(app, '/v1/simulations', me.key);
  t.is(first.body.data.length, 20);
  t.is(typeof first.body.next_cursor, 'string');
  t.is((await getWithKey(app, '/v1/simulations?limit=1', me.key)).body.data.length, 1);
  const hundred = await getWithKey(app, '/v1/simulations?limit=100', me.key);
  t.is(hundred.body.data.length, 100);
  const last = await getWithKey(app, `/v1/simulations?limit=100&cursor=${hundred.body.next_cursor}`, me.key);
  t.is(last.body.data.length, 1);
  t.is(last.body.next_cursor, null);
  // Exactly a page's worth left: the page is full and still the last.
  const exact = await getWithKey(app, `/v1/simulations?limit=1&cursor=${hundred.body.next_cursor}`, me.key);
  t.is(exact.body.data.length, 1);
  t.is(exact.body.next_cursor, null);
});

test('filters by preset (alias accepted) and by status, alone and together, across pages', async (t) => {
  const me = await caller();
  for (const [preset, status] of [
    ['mobile_app', 'completed'], ['mobile_app', 'failed'], ['finance', 'completed'], ['mobile_app', 'completed'], ['education', 'timed_out'], ['mobile_app', 'queued'],
  ] as const) {
    await insertLedgerRow(app.services.pool, me.accountId, { preset, profile: 'x', status });
  }
  const mobile = await walkHistory(app, me.key, 'preset=mobile&limit=1');
  t.deepEqual(mobile.map((run) => run.preset), ['mobile_app', 'mobile_app', 'mobile_app', 'mobile_app']);
  t.deepEqual(mobile.map((run) => run.status), ['queued', 'completed', 'failed', 'completed']);
  t.deepEqual((await walkHistory(app, me.key, 'status=completed&limit=2')).map((run) => run.preset), ['mobile_app', 'finance', 'mobile_app']);
  t.deepEqual((await walkHistory(app, me.key, 'preset=mobile_app&status=completed')).length, 2);
  t.deepEqual((await walkHistory(app, me.key, 'status=timed_out')).map((run) => run.preset), ['education']);
  t.deepEqual((await walkHistory(app, me.key, 'preset=healthcare')).length, 0);
});

test('a malformed query answers 422 validation_failed naming the parameter', async (t) => {
  const me = await caller();
  const cases: [string, string][] = [
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=2.5', 'limit'],
    ['cursor=not-a-cursor', 'cursor'],
    [`cursor=${Buffer.from(`2026-02-30T00:00:00.000000Z|${randomUUID()}`).toString('base64url')}`, 'cursor'],
    [`cursor=${Buffer.from(`2026-01-01T00:00:00.000000Z|'; DROP TABLE simulations; --`).toString('base64url')}`, 'cursor'],
    ['cursor=', 'cursor'],
    ['preset=astrology', 'preset'],
    ['status=running', 'status'],
    ['limit=5&limit=6', 'limit'],
    ['sort=oldest', 'sort'],
  ];
  for (const [query, path] of cases) {
    const response = await getWithKey(app, `/v1/simulations?${query}`, me.key);
    t.is(response.status, 422, query);
    t.is(response.body.error.details.code, 'validation_failed', query);
    t.true(response.body.error.details.issues.some((issue: any) => issue.path === path), `${query}: ${response.text}`);
  }
});

test("another account's runs are never listed, and its ids answer exactly like unknown and malformed ones: 404 simulation_not_found", async (t) => {
  const me = await caller();
  const other = await caller();
  const theirs = await postSimulation(app, { preset: 'education', num_interactions: 4, seed: 1 }, { key: other.key });
  t.is(theirs.status, 200);
  const theirRow = await insertLedgerRow(app.services.pool, other.accountId, { status: 'failed' });
  t.deepEqual((await getWithKey(app, '/v1/simulations', me.key)).body.data, []);
  // Their cursor positions only my own (empty) history.
  const theirPage = await getWithKey(app, '/v1/simulations?limit=1', other.key);
  t.deepEqual((await getWithKey(app, `/v1/simulations?cursor=${theirPage.body.next_cursor}`, me.key)).body.data, []);

  const ids = [theirs.body.simulation_id, theirRow, randomUUID(), 'not-a-uuid', '1', '00000000-0000-0000-0000-000000000000', 'x'.repeat(2000), "'%20OR%201=1--", theirs.body.simulation_id.toUpperCase()];
  for (const suffix of ['', '/records']) {
    const answers = [];
    for (const id of ids) {
      const response = await getWithKey(app, `/v1/simulations/${id}${suffix}`, me.key, { 'X-Request-ID': 'same-request-id' });
      t.is(response.status, 404, `${id}${suffix}: ${response.text}`);
      answers.push({ body: response.text, type: response.headers.get('content-type') });
    }
    // Byte for byte the same answer, whatever the id was.
    t.is(new Set(answers.map((answer) => JSON.stringify(answer))).size, 1, JSON.stringify(answers));
    t.like(JSON.parse(answers[0]?.body ?? '{}'), { error: { status_code: 404, details: { code: 'simulation_not_found' } } });
  }
  // The owner still sees its own.
  t.is((await getWithKey(app, `/v1/simulations/${theirs.body.simulation_id}`, other.key)).status, 200);
});

test('every history route demands authentication', async (t) => {
  for (const path of ['/v1/simulations', `/v1/simulations/${randomUUID()}`, `/v1/simulations/${randomUUID()}/records`]) {
    const response = await getWithKey(app, path, undefined);
    t.is(response.status, 401, path);
    t.is(response.body.error.details.code, 'authentication_required');
  }
});

test('a settled run whose ledger row is held back is still found by its id and in the history, as the row will say', async (t) => {
  const me = await caller();
  const redis = connectTestRedis();
  t.teardown(() => redis.disconnect());
  // Ledger writes wait behind this lock (INSERT needs ROW EXCLUSIVE); reads (ACCESS SHARE) do not.
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked: () => void = () => {};
  const lockTaken = new Promise<void>((resolve) => (locked = resolve));
  const holding = app.services.pool.transaction(async (transaction) => {
    await transaction.query(sql.type(z.object({}))`LOCK TABLE simulations IN EXCLUSIVE MODE`);
    locked();
    await released;
  });
  t.teardown(async () => {
    release();
    await holding;
  });
  await lockTaken;

  const posting = postSimulation(app, { preset: 'finance', num_interactions: 7, seed: 5 }, { key: me.key });
  // The run settled in Redis while its row waits for the lock: the instant a reader used to miss it.
  const { inflight } = accountRunKeys(app.redisPrefix, me.accountId);
  const id = await eventually(async () => {
    const entries = Object.entries(await redis.hgetall(inflight));
    return entries.find(([, value]) => (JSON.parse(value) as { state: string }).state === 'settled')?.[0];
  });

  const during = await getWithKey(app, `/v1/simulations/${id}`, me.key);
  t.is(during.status, 200, during.text);
  t.like(during.body, { simulation_id: id, status: 'completed', num_interactions: 7, seed: 5 });
  for (const query of ['', '?status=completed']) {
    const list = await getWithKey(app, `/v1/simulations${query}`, me.key);
    t.deepEqual(list.body.data.map((run: any) => run.simulation_id), [id], query);
    t.deepEqual(list.body.data[0], during.body, query);
  }
  t.deepEqual((await getWithKey(app, '/v1/simulations?status=queued', me.key)).body.data, []);

  release();
  await holding;
  t.is((await posting).status, 200);
  // Once the row is committed the entry goes; the run reads the same from the ledger.
  await eventually(async () => ((await redis.hexists(inflight, id)) === 0 ? true : undefined));
  t.deepEqual((await getWithKey(app, `/v1/simulations/${id}`, me.key)).body, during.body);
});
