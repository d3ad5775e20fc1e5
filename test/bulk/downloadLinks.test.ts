import { execFile } from 'node:child_process';
import test from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { buildCaller } from '../helpers/limitFixtures.ts';
import type { TestApp } from '../helpers/startTestApp.ts';
import { testRedisEnv } from '../helpers/testRedis.ts';
import { useFileStack } from '../helpers/useFileStack.ts';
import { insertLedgerRow } from '../history/historyFixtures.ts';
import { decodeBody } from './decodeBody.ts';
import { type HttpAnswer, sendRequest } from './httpRequest.ts';

let app: TestApp;
useFileStack(test, (started) => {
  app = started;
});

const ACCEPT = { json: 'application/json', ndjson: 'application/x-ndjson', csv: 'text/csv', parquet: 'application/vnd.apache.parquet' } as const;
type Format = keyof typeof ACCEPT;

const postRun = async (key: string, format: Format, numInteractions = 2000): Promise<{ id: string; first: HttpAnswer }> => {
  const first = await sendRequest(`${app.url}/v1/simulations`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}`, Accept: ACCEPT[format] },
    body: JSON.stringify({ preset: 'healthcare', num_interactions: numInteractions, seed: 3 }),
  });
  if (first.status !== 200) {
    throw new Error(`POST answered ${first.status}`);
  }
  return { id: first.headers['simulation-id']!, first };
};

const createLink = (key: string, id: string, body: unknown): Promise<HttpAnswer> =>
  sendRequest(`${app.url}/v1/simulations/${id}/links`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });

/** The link as the service would be reached at its PUBLIC_URL: here, the test app's own address. */
const local = (url: string): string => `${app.url}${new URL(url).pathname}`;

const download = (url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<HttpAnswer> => sendRequest(local(url), { method, headers });

const makeLink = async (key: string, id: string, format: Format, expiresIn?: number): Promise<string> => {
  const made = await createLink(key, id, { format, ...(expiresIn === undefined ? {} : { expires_in: expiresIn }) });
  if (made.status !== 201) {
    throw new Error(`link creation answered ${made.status}: ${made.bytes.toString()}`);
  }
  return made.json.url;
};

const caller = () => buildCaller(app.services.pool, { requests_per_minute: 1000, max_concurrent_simulations: 4 });

test('a link serves the run in its format with no credentials, byte for byte the first answer, in every format', async (t) => {
  const me = await caller();
  for (const format of Object.keys(ACCEPT) as Format[]) {
    const { id, first } = await postRun(me.key, format);
    const made = await createLink(me.key, id, { format });
    t.is(made.status, 201);
    t.is(made.headers['cache-control'], 'no-store');
    t.deepEqual(Object.keys(made.json).sort(), ['expires_at', 'format', 'url']);
    t.is(made.json.format, format);
    t.regex(made.json.url, /^http:\/\/[^/]+\/v1\/downloads\/[A-Za-z0-9_-]{43}$/);
    const expiresIn = (Date.parse(made.json.expires_at) - Date.now()) / 1000;
    t.true(expiresIn > 3500 && expiresIn <= 3601, `default expiry an hour ahead, was ${expiresIn} s`);

    const got = await download(made.json.url, { Accept: 'text/html' });
    t.is(got.status, 200, format);
    t.true(got.bytes.equals(first.bytes), `${format}: the link's body differs from the first answer`);
    t.is(got.headers['content-type'], first.headers['content-type']);
    t.is(got.headers['simulation-id'], id);
    t.is(got.headers['accept-ranges'], 'bytes');
    t.regex(got.headers.etag ?? '', /^"/);
    t.is(got.headers['content-disposition'], `attachment; filename="${id}.${format}"`);
  }
});

test('a link answers HEAD with the length and Range with 206 slices (what DuckDB and curl -C - ask), and codes text on request', async (t) => {
  const me = await caller();
  const { id, first } = await postRun(me.key, 'parquet', 20_000);
  const url = await makeLink(me.key, id, 'parquet');
  const head = await download(url, {}, 'HEAD');
  t.is(head.status, 200);
  t.is(head.headers['content-length'], String(first.bytes.length));
  t.is(head.bytes.length, 0);
  const footer = await download(url, { Range: 'bytes=-8' });
  t.is(footer.status, 206);
  t.is(footer.headers['content-range'], `bytes ${first.bytes.length - 8}-${first.bytes.length - 1}/${first.bytes.length}`);
  t.true(footer.bytes.equals(first.bytes.subarray(-8)));
  t.is(footer.bytes.subarray(4).toString(), 'PAR1');
  const middle = await download(url, { Range: 'bytes=4-1003', 'If-Range': head.headers.etag! });
  t.is(middle.status, 206);
  t.true(middle.bytes.equals(first.bytes.subarray(4, 1004)));

  const csv = await postRun(me.key, 'csv', 5000);
  const csvUrl = await makeLink(me.key, csv.id, 'csv');
  const coded = await download(csvUrl, { 'Accept-Encoding': 'br' });
  t.is(coded.headers['content-encoding'], 'br');
  t.true(decodeBody(coded.bytes, 'br').equals(csv.first.bytes));
});

test('link creation: format required, expires_in 60 to 604800, no unknown fields (422); another account\'s run 404; a run not completed 409', async (t) => {
  const me = await caller();
  const { id } = await postRun(me.key, 'json', 50);
  for (const body of [{}, { format: 'xml' }, { format: 'csv', expires_in: 59 }, { format: 'csv', expires_in: 604_801 }, { format: 'csv', expires_in: 1.5 }, { format: 'csv', colour: 'red' }]) {
    const refused = await createLink(me.key, id, body);
    t.is(refused.status, 422, JSON.stringify(body));
    t.is(refused.json.error.details.code, 'validation_failed');
  }
  const week = await createLink(me.key, id, { format: 'csv', expires_in: 604_800 });
  t.is(week.status, 201);
  t.true(Math.abs(Date.parse(week.json.expires_at) - Date.now() - 604_800_000) < 60_000);

  const other = await caller();
  for (const runId of [id, 'not-a-uuid', '00000000-0000-4000-8000-000000000000']) {
    const hidden = await createLink(other.key, runId, { format: 'csv' });
    t.is(hidden.status, 404, runId);
    t.is(hidden.json.error.details.code, 'simulation_not_found');
  }
  const failed = await insertLedgerRow(app.services.pool, me.accountId, { status: 'failed' });
  const notCompleted = await createLink(me.key, failed, { format: 'csv' });
  t.is(notCompleted.status, 409);
  t.is(notCompleted.json.error.details.code, 'simulation_not_completed');
  t.is((await sendRequest(`${app.url}/v1/simulations/${id}/links`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"format":"csv"}' })).status, 401);
});

test('a forged or unknown token answers 404 link_not_found; a link past expires_at answers 410 link_expired', async (t) => {
  const me = await caller();
  const { id } = await postRun(me.key, 'ndjson', 50);
  const url = await makeLink(me.key, id, 'ndjson', 60);
  const token = new URL(url).pathname.split('/').at(-1)!;
  const forged = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
  for (const path of [`/v1/downloads/${forged}`, '/v1/downloads/short', `/v1/downloads/${token}x`]) {
    for (const method of ['GET', 'HEAD']) {
      const missing = await sendRequest(`${app.url}${path}`, { method });
      t.is(missing.status, 404, `${method} ${path}`);
      if (method === 'GET') {
        t.is(missing.json.error.details.code, 'link_not_found');
      }
    }
  }
  t.is((await download(url)).status, 200);
  await app.services.pool.query(sql.type(z.object({}))`UPDATE download_links SET expires_at = now() - interval '1 second' WHERE simulation_id = ${id}`);
  const expired = await download(url);
  t.is(expired.status, 410);
  t.is(expired.json.error.details.code, 'link_expired');
});

test("revoking the key that made a link ends it; another key's links live on; deactivating the account ends them all", async (t) => {
  const account = await buildAccount(app.services.pool, { plan: 'pro' });
  const maker = await buildApiKey(app.services.pool, account.id, { name: 'maker' });
  const keeper = await buildApiKey(app.services.pool, account.id, { name: 'keeper' });
  const { id } = await postRun(maker.key, 'csv', 100);
  const byMaker = await makeLink(maker.key, id, 'csv');
  const byKeeper = await makeLink(keeper.key, id, 'csv');
  t.is((await download(byMaker)).status, 200);

  const revoked = await sendRequest(`${app.url}/v1/api-keys/${maker.id}`, { method: 'DELETE', headers: { Authorization: `Bearer ${keeper.key}` } });
  t.is(revoked.status, 200);
  const ended = await download(byMaker);
  t.is(ended.status, 410);
  t.is(ended.json.error.details.code, 'link_expired');
  t.is((await download(byMaker, {}, 'HEAD')).status, 410);
  t.is((await download(byKeeper)).status, 200);

  await app.services.pool.query(sql.type(z.object({}))`UPDATE accounts SET is_active = false WHERE id = ${account.id}`);
  const deactivated = await download(byKeeper);
  t.is(deactivated.status, 410);
  t.is(deactivated.json.error.details.code, 'link_expired');
});

/** The admin CLI exactly as an operator runs it, against this test's database and Redis prefix. */
const admin = async (args: readonly string[]): Promise<void> => {
  await new Promise<void>((resolve, reject) => {
    execFile(
      process.execPath,
      ['scripts/admin.ts', ...args],
      { env: { ...process.env, ...testRedisEnv(), DATABASE_URL: app.database.url, REDIS_PREFIX: app.redisPrefix, NODE_ENV: 'test' }, timeout: 60_000 },
      (error, _stdout, stderr) => (error === null ? resolve() : reject(new Error(`admin ${args.join(' ')} failed: ${stderr}`))),
    );
  });
};

test('a link ended by deactivating its account stays ended after the account is activated again', async (t) => {
  const account = await buildAccount(app.services.pool, { plan: 'pro' });
  const { key } = await buildApiKey(app.services.pool, account.id);
  const { id } = await postRun(key, 'csv', 100);
  const url = await makeLink(key, id, 'csv');
  t.is((await download(url)).status, 200);

  await admin(['deactivate', '--id', account.id]);
  t.is((await download(url)).status, 410);
  await admin(['activate', '--id', account.id]);
  const after = await download(url);
  t.is(after.status, 410);
  t.is(after.json.error.details.code, 'link_expired');
  // The account itself is back: a link made now serves.
  t.is((await download(await makeLink(key, id, 'csv'))).status, 200);
});

test("a link for a run larger than the caller's current plan allows is refused at creation with the code its downloads would get", async (t) => {
  const account = await buildAccount(app.services.pool, { plan: 'pro' });
  const { key } = await buildApiKey(app.services.pool, account.id);
  const { id } = await postRun(key, 'ndjson', 2000);
  const before = await makeLink(key, id, 'ndjson');
  // The free plan allows 1000 interactions per request.
  await admin(['set-plan', '--id', account.id, '--plan', 'free']);
  const refused = await createLink(key, id, { format: 'ndjson' });
  t.is(refused.status, 403);
  t.like(refused.json.error.details, { code: 'interactions_per_request_exceeded', limit: 1000, requested: 2000 });
  // The same code a download through a link made before the change answers.
  const downloaded = await download(before);
  t.is(downloaded.status, 403);
  t.is(downloaded.json.error.details.code, 'interactions_per_request_exceeded');
});

test("downloads through a link count in the owner's rate window, with the owner's own requests", async (t) => {
  const me = await buildCaller(app.services.pool, { requests_per_minute: 3 });
  const { id } = await postRun(me.key, 'ndjson', 100);
  const url = await makeLink(me.key, id, 'ndjson');
  const first = await download(url);
  t.is(first.status, 200);
  t.regex(first.headers.ratelimit ?? '', /r=1;/, 'the POST and this download are counted');
  t.is((await download(url, { Range: 'bytes=5-' })).status, 206);
  const limited = await download(url);
  t.is(limited.status, 429);
  t.is(limited.json.error.details.code, 'rate_limit_exceeded');
  t.truthy(limited.headers['retry-after']);
  const own = await sendRequest(`${app.url}/v1/simulations/${id}/records`, { headers: { Authorization: `Bearer ${me.key}` } });
  t.is(own.status, 429, "the owner's own replay shares the window");
});
