import test from 'ava';
import { Redis } from 'ioredis';
import { limitKeys } from '../../api/limits/limitKeys.ts';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { eventually } from '../helpers/eventually.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { startTestWorker } from '../helpers/startTestWorker.ts';
import { TEST_REDIS_URL } from '../helpers/testRedis.ts';
import { postSimulation } from '../simulations/postSimulation.ts';
import type { SimulationWorker } from '../../worker/startSimulationWorker.ts';
import { type ClockedCli, startClockedCli } from './spawnCli.ts';

let app: TestApp;
let worker: SimulationWorker;
let redis: Redis;

test.before(async () => {
  app = await startTestApp();
  worker = await startTestWorker({ redisPrefix: app.redisPrefix });
  redis = new Redis(TEST_REDIS_URL);
});

test.after.always(async () => {
  redis?.disconnect();
  await worker?.close();
  await app?.close();
});

/** A free account (5 requests a minute) that has just used its five. */
const exhaustedFreeAccount = async () => {
  const account = await buildAccount(app.services.pool, { plan: 'free' });
  const key = await buildApiKey(app.services.pool, account.id);
  for (let index = 0; index < 5; index += 1) {
    const response = await postSimulation(app, { preset: 'finance', num_interactions: 1 }, { key: key.key });
    if (response.status !== 200) {
      throw new Error(`run ${index + 1} of 5 answered ${response.status}`);
    }
  }
  return { accountId: account.id, target: { url: app.url, key: key.key } };
};

/** Moves the account's rate window `seconds` into the past, as the CLI's (manual) clock just did. */
const ageRateWindow = async (accountId: string, seconds: number): Promise<void> => {
  const key = limitKeys(app.redisPrefix, accountId, 'unused').rateWindow;
  const entries = await redis.zrange(key, 0, -1, 'WITHSCORES');
  for (let index = 0; index < entries.length; index += 2) {
    await redis.zadd(key, Number(entries[index + 1]) - seconds * 1_000_000, entries[index] as string);
  }
};

const RETRY_LINE = /^bss: HTTP 429 rate_limit_exceeded, retrying in (\d+) s \(Retry-After; retry (\d) of 3\)$/gm;

const retryLines = (cli: ClockedCli) => [...cli.stderr().matchAll(RETRY_LINE)];

test('the sixth request of a free account is answered 429: the CLI says so, waits Retry-After and gets the result', async (t) => {
  const { accountId, target } = await exhaustedFreeAccount();
  const cli = startClockedCli(['simulate', '--preset', 'finance', '--seed', '5', '-n', '20'], target);
  const [first] = await eventually(() => (retryLines(cli).length === 1 ? retryLines(cli) : undefined), 60_000);
  const waitSeconds = Number(first?.[1]);
  t.true(waitSeconds >= 1 && waitSeconds <= 60, `Retry-After ${waitSeconds}`);
  t.is(first?.[2], '1');
  // The service's minute goes by as the CLI's clock does.
  await ageRateWindow(accountId, waitSeconds + 1);
  cli.tick();
  const run = await cli.done;
  t.is(run.code, 0, run.stderr);
  t.is(retryLines(cli).length, 1);
  const body = JSON.parse(run.stdout.toString('utf8')) as { seed: number; data: unknown[] };
  t.is(body.seed, 5);
  t.is(body.data.length, 20);
});

test('a 429 is retried at most 3 times, then the CLI exits 1 with the API\'s message and code', async (t) => {
  const { target } = await exhaustedFreeAccount();
  const cli = startClockedCli(['simulate', '--preset', 'finance', '-n', '20'], target);
  for (let retry = 1; retry <= 3; retry += 1) {
    await eventually(() => (retryLines(cli).length === retry ? true : undefined), 60_000);
    // Time passes for the CLI only: the window stays full.
    cli.tick();
  }
  const run = await cli.done;
  t.is(run.code, 1);
  t.deepEqual(
    retryLines(cli).map((line) => line[2]),
    ['1', '2', '3'],
  );
  t.regex(run.stderr, /\(code rate_limit_exceeded, HTTP 429, request [0-9a-f-]{36}\)\n$/);
  t.is(run.stdout.length, 0);
  t.false(run.stderr.includes('\u001b'));
});
