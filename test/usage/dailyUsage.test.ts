import { randomUUID } from 'node:crypto';
import test from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import type { SimulationWorker } from '../../worker/startSimulationWorker.ts';
import { findAccountsByEmail } from '../../shared/db/queries/accounts.ts';
import { browserRequest, someone } from '../auth/authFixtures.ts';
import { eventually } from '../helpers/eventually.ts';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { signIn, signInEnv, TEST_PUBLIC_URL } from '../helpers/signInWithIdp.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { startTestIdp, type TestIdp } from '../helpers/startTestIdp.ts';
import { startTestWorker } from '../helpers/startTestWorker.ts';
import { getWithKey } from '../history/historyFixtures.ts';
import { postSimulation } from '../simulations/postSimulation.ts';
import { insertSettledRuns } from './usageFixtures.ts';
import { buildAdmission } from '../helpers/limitFixtures.ts';

let idp: TestIdp;
let app: TestApp;
let worker: SimulationWorker;

test.before(async () => {
  idp = await startTestIdp();
  app = await startTestApp({ env: signInEnv(idp) });
  worker = await startTestWorker({ redisPrefix: app.redisPrefix, threads: 1 });
});

test.after.always(async () => {
  await worker?.close();
  await app?.close();
  await idp?.stop();
});

const caller = async (plan = 'pro') => {
  const account = await buildAccount(app.services.pool, { plan });
  const apiKey = await buildApiKey(app.services.pool, account.id);
  return { accountId: account.id, apiKeyId: apiKey.id, key: apiKey.key, keyPrefix: apiKey.key_prefix };
};

const zero = { runs: 0, requests: 0, interactions: 0 };
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const today = () => new Date().toISOString().slice(0, 10);

test('runs made over HTTP with a key and in a browser session are counted by day, status and credential, and the totals equal GET /v1/usage', async (t) => {
  const person = someone();
  const login = await signIn(app, idp, 'github', person);
  const cookie = login.sessionCookie;
  const [account] = await findAccountsByEmail(app.services.pool, person.email ?? '');
  if (cookie === undefined || account === undefined) {
    t.fail('no session');
    return;
  }
  const apiKey = await buildApiKey(app.services.pool, account.id, { name: 'ci' });
  for (const body of [{ preset: 'finance', num_interactions: 12, seed: 1 }, { preset: 'education', num_interactions: 30 }]) {
    const run = await postSimulation(app, body, { key: apiKey.key });
    t.is(run.status, 200, run.text);
  }
  const browserRun = await browserRequest(app, 'POST', '/v1/simulations', { cookie, origin: TEST_PUBLIC_URL, body: { preset: 'healthcare', num_interactions: 7 } });
  t.is(browserRun.status, 200);
  // Runs that ended otherwise, as the ledger records them.
  const sessionId = randomUUID();
  await insertSettledRuns(app.services.pool, [
    { accountId: account.id, status: 'failed', numInteractions: 500, apiKeyId: apiKey.id },
    { accountId: account.id, status: 'cancelled', numInteractions: 50, charged: 4, sessionId },
    { accountId: account.id, status: 'cancelled', numInteractions: 50, charged: null, sessionId },
    { accountId: account.id, status: 'timed_out', numInteractions: 80, sessionId },
  ]);

  // A run's settlement is written beside its answer: wait for the three to land.
  const daily = await eventually(async () => {
    const read = await getWithKey(app, '/v1/usage/daily', apiKey.key);
    return read.status !== 200 || read.body.totals.by_status.completed.runs === 3 ? read : undefined;
  });
  t.is(daily.status, 200, daily.text);
  t.is(daily.headers.get('cache-control'), 'no-store');
  const now = new Date();
  t.deepEqual(daily.body.period, {
    start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(),
    end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
  });
  // Every day of the month so far, zeros included, oldest first.
  const dates = daily.body.days.map((day: { date: string }) => day.date);
  t.is(dates.length, now.getUTCDate());
  t.is(dates[0], daily.body.period.start.slice(0, 10));
  t.is(dates.at(-1), today());
  for (const day of daily.body.days.slice(0, -1)) {
    t.like(day, zero);
  }
  const expected = {
    runs: 7,
    requests: 4,
    interactions: 12 + 30 + 7 + 4,
    by_status: {
      queued: zero,
      completed: { runs: 3, requests: 3, interactions: 49 },
      cancelled: { runs: 2, requests: 1, interactions: 4 },
      failed: { runs: 1, requests: 0, interactions: 0 },
      timed_out: { runs: 1, requests: 0, interactions: 0 },
    },
  };
  t.deepEqual(daily.body.days.at(-1), { date: today(), ...expected });
  t.deepEqual(daily.body.totals, expected);
  const usage = await getWithKey(app, '/v1/usage', apiKey.key);
  t.deepEqual(usage.body.usage, { requests: daily.body.totals.requests, interactions: daily.body.totals.interactions });

  // Per credential: the key, and every browser session together; most runs first.
  t.is(daily.body.credentials.length, 2);
  const [sessions, key] = daily.body.credentials;
  t.like(sessions, { credential: { type: 'session' }, runs: 4, requests: 2, interactions: 11 });
  t.like(sessions.by_status, { completed: { runs: 1, requests: 1, interactions: 7 }, cancelled: { runs: 2, requests: 1, interactions: 4 }, timed_out: { runs: 1, requests: 0, interactions: 0 } });
  t.like(key, { credential: { type: 'api_key', api_key_id: apiKey.id, key_prefix: apiKey.key_prefix }, runs: 3, requests: 2, interactions: 42 });
  t.like(key.by_status, { completed: { runs: 2, requests: 2, interactions: 42 }, failed: { runs: 1, requests: 0, interactions: 0 } });
  for (const entry of daily.body.credentials) {
    t.regex(entry.last_run_at, ISO);
  }

  // The browser session reads the same, and narrows the days to one credential.
  const bySession = await browserRequest(app, 'GET', '/v1/usage/daily?credential=session', { cookie });
  t.is(bySession.status, 200);
  t.deepEqual(bySession.body.totals, { runs: 4, requests: 2, interactions: 11, by_status: sessions.by_status });
  t.deepEqual(bySession.body.days.at(-1).by_status, sessions.by_status);
  t.deepEqual(bySession.body.credentials, daily.body.credentials, 'every credential is still listed');
  const byKey = await getWithKey(app, `/v1/usage/daily?credential=${apiKey.id}`, apiKey.key);
  t.deepEqual(byKey.body.totals, { runs: 3, requests: 2, interactions: 42, by_status: key.by_status });
});

test('an earlier month is reported whole, each run on the UTC day it was made', async (t) => {
  const me = await caller();
  await insertSettledRuns(app.services.pool, [
    { accountId: me.accountId, status: 'completed', numInteractions: 100, apiKeyId: me.apiKeyId, createdAt: '2026-03-01T00:00:00.000Z' },
    { accountId: me.accountId, status: 'completed', numInteractions: 20, createdAt: '2026-03-15T12:00:00.000Z' },
    { accountId: me.accountId, status: 'cancelled', numInteractions: 20, charged: 5, createdAt: '2026-03-15T13:00:00.000Z' },
    { accountId: me.accountId, status: 'failed', numInteractions: 20, apiKeyId: me.apiKeyId, createdAt: '2026-03-31T23:59:59.999Z' },
    // The next month's first instant belongs to the next month.
    { accountId: me.accountId, status: 'completed', numInteractions: 999, createdAt: '2026-04-01T00:00:00.000Z' },
  ]);
  const march = await getWithKey(app, '/v1/usage/daily?period=2026-03', me.key);
  t.is(march.status, 200, march.text);
  t.deepEqual(march.body.period, { start: '2026-03-01T00:00:00.000Z', end: '2026-04-01T00:00:00.000Z' });
  t.is(march.body.days.length, 31);
  const busy = march.body.days.filter((day: { runs: number }) => day.runs > 0);
  t.deepEqual(
    busy.map((day: { date: string; runs: number; requests: number; interactions: number }) => [day.date, day.runs, day.requests, day.interactions]),
    [
      ['2026-03-01', 1, 1, 100],
      ['2026-03-15', 2, 2, 25],
      ['2026-03-31', 1, 0, 0],
    ],
  );
  t.deepEqual(busy[1].by_status.cancelled, { runs: 1, requests: 1, interactions: 5 });
  t.deepEqual(busy[2].by_status.failed, { runs: 1, requests: 0, interactions: 0 });
  t.like(march.body.totals, { runs: 4, requests: 3, interactions: 125 });
  t.deepEqual(
    march.body.credentials.map((entry: { credential: { type: string }; runs: number; last_run_at: string }) => [entry.credential.type, entry.runs, entry.last_run_at]),
    [
      ['api_key', 2, '2026-03-31T23:59:59.999Z'],
      ['session', 2, '2026-03-15T13:00:00.000Z'],
    ],
  );
  const april = await getWithKey(app, '/v1/usage/daily?period=2026-04', me.key);
  t.is(april.body.days.length, 30);
  t.like(april.body.totals, { runs: 1, requests: 1, interactions: 999 });
});

test('both shapes of the ledger show: a run queued then settled, and a run written once settled', async (t) => {
  const me = await caller();
  const read = async () => (await getWithKey(app, '/v1/usage/daily', me.key)).body.totals;
  const [queuedId] = await insertSettledRuns(app.services.pool, [{ accountId: me.accountId, status: 'queued', numInteractions: 40, apiKeyId: me.apiKeyId }]);
  t.like(await read(), { runs: 1, requests: 0, interactions: 0, by_status: { queued: { runs: 1, requests: 0, interactions: 0 } } });
  await app.services.pool.query(sql.type(z.object({}))`
    UPDATE simulations SET status = 'cancelled', charged_interactions = 15, finished_at = now() WHERE id = ${queuedId ?? ''}
  `);
  t.like(await read(), { runs: 1, requests: 1, interactions: 15, by_status: { queued: zero, cancelled: { runs: 1, requests: 1, interactions: 15 } } });
  await insertSettledRuns(app.services.pool, [{ accountId: me.accountId, status: 'completed', numInteractions: 40, apiKeyId: me.apiKeyId }]);
  t.like(await read(), { runs: 2, requests: 2, interactions: 55, by_status: { completed: { runs: 1, requests: 1, interactions: 40 } } });
});

test('a run in flight, which has no ledger row yet, counts as a queued run of today and its credential, then moves to how it ended', async (t) => {
  const me = await caller();
  const read = async (query = '') => (await getWithKey(app, `/v1/usage/daily${query}`, me.key)).body;
  // Admitted through the real admission script and held by this API process: in Redis only.
  const admission = await buildAdmission(app.services, me.accountId, 30);
  const during = await read();
  t.like(during.totals, { runs: 1, requests: 0, interactions: 0, by_status: { queued: { runs: 1, requests: 0, interactions: 0 } } });
  t.like(during.days.at(-1), { runs: 1, by_status: { queued: { runs: 1 } } });
  t.like(during.credentials, [{ credential: { type: 'session' }, runs: 1 }]);
  // Narrowed to a key that did not make it, the days leave it out; the credentials still list it.
  const narrowed = await read(`?credential=${me.apiKeyId}`);
  t.like(narrowed.totals, { runs: 0 });
  t.is(narrowed.credentials.length, 1);

  admission.lease.begin();
  await admission.lease.settle({ status: 'completed', body: Buffer.alloc(0), startedAt: Date.now(), finishedAt: Date.now(), computeMs: 2 });
  t.like((await read()).totals, { runs: 1, requests: 1, interactions: 30, by_status: { queued: zero, completed: { runs: 1, requests: 1, interactions: 30 } } });
});

test("another account's runs are never counted or listed, even when its key id is named", async (t) => {
  const me = await caller();
  const other = await caller();
  await insertSettledRuns(app.services.pool, [
    { accountId: other.accountId, status: 'completed', numInteractions: 77, apiKeyId: other.apiKeyId },
    { accountId: other.accountId, status: 'completed', numInteractions: 77 },
    { accountId: me.accountId, status: 'completed', numInteractions: 3, apiKeyId: me.apiKeyId },
  ]);
  const mine = await getWithKey(app, '/v1/usage/daily', me.key);
  t.like(mine.body.totals, { runs: 1, requests: 1, interactions: 3 });
  t.deepEqual(
    mine.body.credentials.map((entry: { credential: unknown }) => entry.credential),
    [{ type: 'api_key', api_key_id: me.apiKeyId, key_prefix: me.keyPrefix }],
  );
  const named = await getWithKey(app, `/v1/usage/daily?credential=${other.apiKeyId}`, me.key);
  t.is(named.status, 200);
  t.like(named.body.totals, zero);
  t.false(named.text.includes(other.keyPrefix));
  t.like((await getWithKey(app, '/v1/usage/daily', other.key)).body.totals, { runs: 2, requests: 2, interactions: 154 });
});

test('without valid credentials the answer is 401 in the error envelope', async (t) => {
  const none = await getWithKey(app, '/v1/usage/daily', undefined);
  t.is(none.status, 401);
  t.is(none.body.error.details.code, 'authentication_required');
  t.is(none.body.error.request_id, none.headers.get('x-request-id'));
  const unknown = await getWithKey(app, '/v1/usage/daily', `bs_live_${'x'.repeat(32)}`);
  t.is(unknown.status, 401);
  t.is(unknown.body.error.details.code, 'invalid_credentials');
  const cookie = await browserRequest(app, 'GET', '/v1/usage/daily', { cookie: 'service_session=forged' });
  t.is(cookie.status, 401);
});

test('a malformed query answers 422 validation_failed naming the parameter', async (t) => {
  const me = await caller();
  const now = new Date();
  const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString().slice(0, 7);
  const cases: [string, string][] = [
    ['period=2026-13', 'period'],
    ['period=2026-1', 'period'],
    ['period=26-01', 'period'],
    ['period=1999-12', 'period'],
    ['period=2026-03-01', 'period'],
    [`period=${next}`, 'period'],
    ['period=2026-03&period=2026-04', 'period'],
    ['credential=key', 'credential'],
    ['credential=12345678-1234-1234-1234', 'credential'],
    ['credential=', 'credential'],
    ['from=2026-03-01', 'from'],
  ];
  for (const [query, parameter] of cases) {
    const response = await getWithKey(app, `/v1/usage/daily?${query}`, me.key);
    t.is(response.status, 422, query);
    t.is(response.body.error.details.code, 'validation_failed', query);
    t.deepEqual(
      response.body.error.details.issues.map((issue: { path: string }) => issue.path),
      [parameter],
      query,
    );
  }
});
