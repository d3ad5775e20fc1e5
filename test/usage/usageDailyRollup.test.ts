import { randomBytes, randomUUID } from 'node:crypto';
import { copyFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import anyTest, { type TestFn } from 'ava';
import pg from 'pg';
import { type DatabasePool, sql } from 'slonik';
import { z } from 'zod';
import { createDatabasePool } from '../../shared/db/createDatabasePool.ts';
import { migrate } from '../../shared/db/migrate.ts';
import { type LedgerRowInput, writeLedger } from '../../shared/db/queries/simulations.ts';
import { expireStaleSimulations } from '../../shared/db/queries/usage.ts';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { createTestDatabase, TEST_POSTGRES_URL, type TestDatabase } from '../helpers/testDatabase.ts';
import { aggregateLedger, insertSettledRuns, readRollup } from './usageFixtures.ts';

// The daily rollup (migration 0011) straight in SQL: whatever writes the ledger (one row written settled,
// as the service does; a row queued then settled, as earlier versions did and the sweeper still settles),
// the rollup equals the ledger's own sums.

const test = anyTest as TestFn<{ database: TestDatabase; pool: DatabasePool }>;

test.before(async (t) => {
  t.context.database = await createTestDatabase();
  t.context.pool = await createDatabasePool(t.context.database.url, { maxPoolSize: 8 });
});

test.after.always(async (t) => {
  await t.context.pool?.end();
  await t.context.database?.drop();
});

const PERIOD = '2026-03-01T00:00:00.000Z';

type Status = LedgerRowInput['status'];

/** A settled run's one row, as the ledger writer gets it from a run's lease. */
const settledRow = (accountId: string, status: Status, chargedInteractions: number | null, overrides: Partial<LedgerRowInput> = {}): LedgerRowInput => ({
  simulationId: randomUUID(),
  accountId,
  apiKeyId: null,
  sessionId: randomUUID(),
  preset: 'finance',
  profile: 'balanced_investor',
  seed: 1,
  numInteractions: 100,
  periodStart: PERIOD,
  serviceVersion: '2.0.0',
  status,
  createdAt: new Date().toISOString(),
  startedAt: null,
  finishedAt: new Date().toISOString(),
  computeMs: status === 'completed' ? 5 : null,
  chargedInteractions,
  ...overrides,
});

const bucketsOf = async (pool: DatabasePool, accountId: string) =>
  (await readRollup(pool, [accountId])).map(({ day, api_key_id, status, runs, requests, interactions }) => ({
    day,
    key: api_key_id,
    status,
    runs,
    requests,
    interactions,
  }));

const today = () => new Date().toISOString().slice(0, 10);

test('settled runs written in one statement by the ledger writer count in their status, charged or not', async (t) => {
  const { pool } = t.context;
  const account = await buildAccount(pool);
  const key = await buildApiKey(pool, account.id);
  // One batch, as a busy writer's group commit sends it.
  const rows = [
    settledRow(account.id, 'completed', 100, { apiKeyId: key.id, sessionId: null }),
    settledRow(account.id, 'completed', 100),
    settledRow(account.id, 'cancelled', 37),
    settledRow(account.id, 'cancelled', null),
    settledRow(account.id, 'timed_out', null),
  ];
  t.deepEqual([...(await writeLedger(pool, rows))].sort(), rows.map((row) => row.simulationId).sort());
  const buckets = await bucketsOf(pool, account.id);
  const find = (key: string | null, status: string) => buckets.find((bucket) => bucket.key === key && bucket.status === status);
  t.like(find(key.id, 'completed'), { runs: 1, requests: 1, interactions: 100 });
  t.like(find(null, 'completed'), { runs: 1, requests: 1, interactions: 100 });
  t.like(find(null, 'cancelled'), { runs: 2, requests: 1, interactions: 37 });
  t.like(find(null, 'timed_out'), { runs: 1, requests: 0, interactions: 0 });
  t.is(find(null, 'queued'), undefined, 'nothing is written queued');
  t.deepEqual(await readRollup(pool, [account.id]), await aggregateLedger(pool, [account.id]));
});

test('a run written once, already settled, counts in its status, charged or not', async (t) => {
  const { pool } = t.context;
  const account = await buildAccount(pool);
  const key = await buildApiKey(pool, account.id);
  await insertSettledRuns(pool, [
    { accountId: account.id, status: 'completed', numInteractions: 250, apiKeyId: key.id, createdAt: '2026-03-02T23:59:59.999Z' },
    { accountId: account.id, status: 'completed', numInteractions: 50, apiKeyId: key.id, createdAt: '2026-03-03T00:00:00.000Z' },
    { accountId: account.id, status: 'cancelled', numInteractions: 500, charged: 120, createdAt: '2026-03-03T10:00:00.000Z' },
    { accountId: account.id, status: 'cancelled', numInteractions: 500, charged: null, createdAt: '2026-03-03T11:00:00.000Z' },
    { accountId: account.id, status: 'failed', numInteractions: 500, createdAt: '2026-03-03T12:00:00.000Z' },
    { accountId: account.id, status: 'timed_out', numInteractions: 500, createdAt: '2026-03-03T13:00:00.000Z' },
  ]);
  t.deepEqual(await bucketsOf(pool, account.id), [
    { day: '2026-03-02', key: key.id, status: 'completed', runs: 1, requests: 1, interactions: 250 },
    { day: '2026-03-03', key: key.id, status: 'completed', runs: 1, requests: 1, interactions: 50 },
    { day: '2026-03-03', key: null, status: 'cancelled', runs: 2, requests: 1, interactions: 120 },
    { day: '2026-03-03', key: null, status: 'failed', runs: 1, requests: 0, interactions: 0 },
    { day: '2026-03-03', key: null, status: 'timed_out', runs: 1, requests: 0, interactions: 0 },
  ]);
  t.deepEqual(await readRollup(pool, [account.id]), await aggregateLedger(pool, [account.id]));
});

test('a retried row counts once', async (t) => {
  const { pool } = t.context;
  const account = await buildAccount(pool);
  const run = settledRow(account.id, 'completed', 100);
  t.deepEqual(await writeLedger(pool, [run]), [run.simulationId]);
  // The acknowledgement was lost: the same batch again (ON CONFLICT DO NOTHING inserts nothing).
  t.deepEqual(await writeLedger(pool, [run]), []);
  t.deepEqual(await bucketsOf(pool, account.id), [{ day: today(), key: null, status: 'completed', runs: 1, requests: 1, interactions: 100 }]);
  t.deepEqual(await readRollup(pool, [account.id]), await aggregateLedger(pool, [account.id]));
});

test("the stale-run sweeper's timeouts and a key's deletion move runs between buckets", async (t) => {
  const { pool } = t.context;
  const account = await buildAccount(pool);
  const key = await buildApiKey(pool, account.id);
  await insertSettledRuns(pool, [
    { accountId: account.id, status: 'queued', apiKeyId: key.id, createdAt: '2026-03-04T08:00:00.000Z' },
    { accountId: account.id, status: 'completed', apiKeyId: key.id, createdAt: '2026-03-04T09:00:00.000Z' },
  ]);
  const swept = await expireStaleSimulations(pool, 60_000);
  t.true(swept.some((row) => row.account_id === account.id));
  t.deepEqual(await bucketsOf(pool, account.id), [
    { day: '2026-03-04', key: key.id, status: 'completed', runs: 1, requests: 1, interactions: 10 },
    { day: '2026-03-04', key: key.id, status: 'timed_out', runs: 1, requests: 0, interactions: 0 },
  ]);
  // Keys are revoked, not deleted; were one deleted, its runs (api_key_id set null) stay counted.
  await pool.query(sql.type(z.object({}))`DELETE FROM api_keys WHERE id = ${key.id}`);
  t.deepEqual(await bucketsOf(pool, account.id), [
    { day: '2026-03-04', key: null, status: 'completed', runs: 1, requests: 1, interactions: 10 },
    { day: '2026-03-04', key: null, status: 'timed_out', runs: 1, requests: 0, interactions: 0 },
  ]);
  t.deepEqual(await readRollup(pool, [account.id]), await aggregateLedger(pool, [account.id]));
});

test('ledger statements racing on the same buckets neither deadlock nor lose a count', async (t) => {
  const { pool } = t.context;
  const accounts = [await buildAccount(pool), await buildAccount(pool)];
  const keys = await Promise.all(accounts.map((account) => buildApiKey(pool, account.id)));
  // Eight writers at once, each writing batches of settled rows that touch the same buckets in
  // different orders (the trigger must lock them in one order).
  const statuses = ['completed', 'cancelled', 'failed', 'timed_out'] as const;
  const writer = async (index: number) => {
    for (let round = 0; round < 15; round += 1) {
      const rows = Array.from({ length: 6 }, (_, n) => {
        const account = accounts[(n + index + round) % 2] as { id: string };
        const withKey = (n + round) % 3 === 0;
        const status = statuses[(n + index) % 4] ?? 'completed';
        const charged = status === 'completed' ? 100 : status === 'cancelled' && n % 2 === 0 ? 40 : null;
        return settledRow(account.id, status, charged, withKey ? { apiKeyId: keys[(n + index + round) % 2]?.id ?? null, sessionId: null } : {});
      });
      await writeLedger(pool, round % 2 === 0 ? rows.reverse() : rows);
    }
  };
  await Promise.all(Array.from({ length: 8 }, (_, index) => writer(index)));
  const ids = accounts.map((account) => account.id);
  const rollup = await readRollup(pool, ids);
  t.deepEqual(rollup, await aggregateLedger(pool, ids));
  t.is(rollup.reduce((sum, bucket) => sum + bucket.runs, 0), 8 * 15 * 6);
});

test('the migration counts the rows the ledger held before it', async (t) => {
  // A database of its own, migrated up to the migration before the rollup, given rows of every shape,
  // then migrated to the end.
  const name = `bss_test_${process.pid}_${randomBytes(4).toString('hex')}_backfill`;
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  const earlier = await mkdtemp(path.join(tmpdir(), 'migrations-'));
  const directory = fileURLToPath(new URL('../../migrations/', import.meta.url));
  let pool: DatabasePool | undefined;
  try {
    await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
    for (const file of await readdir(directory)) {
      if (/^\d{4}_.*\.sql$/.test(file) && file < '0011') {
        await copyFile(path.join(directory, file), path.join(earlier, file));
      }
    }
    const url = new URL(TEST_POSTGRES_URL);
    url.pathname = `/${name}`;
    await migrate(url.toString(), earlier);
    pool = await createDatabasePool(url.toString(), { maxPoolSize: 2 });
    const account = await buildAccount(pool);
    const key = await buildApiKey(pool, account.id);
    await insertSettledRuns(pool, [
      { accountId: account.id, status: 'completed', apiKeyId: key.id, createdAt: '2026-02-27T10:00:00.000Z' },
      { accountId: account.id, status: 'completed', createdAt: '2026-02-27T11:00:00.000Z' },
      { accountId: account.id, status: 'queued', createdAt: '2026-02-28T10:00:00.000Z' },
      { accountId: account.id, status: 'cancelled', charged: 3, createdAt: '2026-02-28T10:00:00.000Z' },
      { accountId: account.id, status: 'failed', createdAt: '2026-02-28T10:00:00.000Z' },
    ]);
    // The rollup first; the migrations after it (download links, …) follow.
    t.is((await migrate(url.toString()))[0], '0011_usage_daily');
    const rollup = await readRollup(pool, [account.id]);
    t.is(rollup.length, 5);
    t.deepEqual(rollup, await aggregateLedger(pool, [account.id]));
    // The queued row backfilled before the triggers existed still moves when it settles.
    await pool.query(sql.type(z.object({}))`UPDATE simulations SET status = 'completed', charged_interactions = 10 WHERE status = 'queued'`);
    t.deepEqual(await readRollup(pool, [account.id]), await aggregateLedger(pool, [account.id]));
  } finally {
    await pool?.end();
    await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
    await admin.end();
    await rm(earlier, { recursive: true, force: true });
  }
});
