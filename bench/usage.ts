// Usage over time at scale: 1,000,000 ledger rows for one account in one month (and 300,000 of 2,000 other
// accounts beside them, over two months), written through the ledger's triggers, then EXPLAIN (ANALYZE, BUFFERS) of the
// exact statement GET /v1/usage/daily runs (unfiltered, one key, the sessions), against a baseline: the
// same answer summed from the ledger itself. Target: under 20 ms. Then the triggers' cost on the write
// path: the ledger writer's statement (a batch of settled runs, each its one row) with the triggers on and off,
// alternating rounds on one connection.
// Run: npm run bench:usage   (BENCH_POSTGRES_URL overrides postgres://postgres@127.0.0.1:5432/postgres)
import { randomUUID } from 'node:crypto';
import { type DatabasePool, sql } from 'slonik';
import { type LedgerRowInput, writeLedger } from '../shared/db/queries/simulations.ts';
import { dailyUsageStatement } from '../shared/db/queries/usageDaily.ts';
import { explainAnalyze, withPlainClient, withScratchDatabase } from './scratchDatabase.ts';

const ROWS = 1_000_000;
const TARGET_MS = 20;
const PERIOD = '2026-01-01T00:00:00.000Z';

interface Filled {
  readonly accountId: string;
  readonly keyId: string;
  readonly fillMs: number;
}

const fill = (url: string): Promise<Filled> =>
  withPlainClient(url, async (client) => {
    const account = await client.query<{ id: string }>(
      "INSERT INTO accounts (email, display_name, plan) VALUES ('bench@example.com', 'Bench', 'enterprise') RETURNING id",
    );
    const accountId = account.rows[0]?.id ?? '';
    const keys = await client.query<{ id: string }>(
      `INSERT INTO api_keys (account_id, name, key_digest, key_prefix)
       SELECT $1, 'bench ' || g, decode(md5(g::text), 'hex'), 'bs_live_ben' || g FROM generate_series(1, 5) AS g RETURNING id`,
      [accountId],
    );
    const keyIds = keys.rows.map((row) => row.id);
    const started = performance.now();
    // One run every 2.6 s over the 31 days of January; five keys and the browser sessions in turn;
    // statuses 90 % completed, 4 % cancelled (half of them charged), 3 % failed, 2 % timed out, 1 % queued.
    await client.query(
      `INSERT INTO simulations (id, account_id, api_key_id, session_id, preset, profile, seed, num_interactions, status, period_start,
         created_at, finished_at, compute_ms, charged_interactions)
       SELECT gen_random_uuid(), $1, CASE WHEN g % 6 = 5 THEN NULL ELSE ($2::uuid[])[g % 6 + 1] END,
         CASE WHEN g % 6 = 5 THEN gen_random_uuid() END, 'finance', 'p', g, 100, s.status, $3,
         $3::timestamptz + g * interval '2.6 seconds', $3::timestamptz + g * interval '2.6 seconds', 3,
         CASE WHEN s.status = 'completed' THEN 100 WHEN s.status = 'cancelled' AND g % 2 = 0 THEN 40 END
       FROM generate_series(1, $4::int) AS g,
         LATERAL (SELECT CASE WHEN g % 100 < 90 THEN 'completed' WHEN g % 100 < 94 THEN 'cancelled' WHEN g % 100 < 97 THEN 'failed'
           WHEN g % 100 < 99 THEN 'timed_out' ELSE 'queued' END AS status) AS s`,
      [accountId, keyIds, PERIOD, ROWS],
    );
    // 2,000 other accounts with 150 runs each over the month and the one before, so the rollup holds
    // hundreds of thousands of others' buckets around the one account's.
    await client.query("INSERT INTO accounts (email, display_name, plan) SELECT 'other' || g || '@example.com', 'Other', 'free' FROM generate_series(1, 2000) AS g");
    await client.query(
      `INSERT INTO simulations (id, account_id, preset, profile, seed, num_interactions, status, period_start, created_at, charged_interactions)
       SELECT gen_random_uuid(), accounts.id, 'finance', 'p', g, 10, CASE WHEN g % 10 = 0 THEN 'failed' ELSE 'completed' END,
         date_trunc('month', t AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', t, CASE WHEN g % 10 = 0 THEN NULL ELSE 10 END
       FROM accounts CROSS JOIN generate_series(1, 150) AS g,
         LATERAL (SELECT $1::timestamptz - interval '31 days' + (g * 397 % 62) * interval '1 day' + g * interval '1 minute' AS t) AS at
       WHERE accounts.email LIKE 'other%'`,
      [PERIOD],
    );
    const fillMs = performance.now() - started;
    await client.query('VACUUM ANALYZE');
    return { accountId, keyId: keyIds[0] ?? '', fillMs };
  });

// The same figures summed from the ledger on every request: what the rollup saves.
const fromLedger = (accountId: string) => sql.fragment`
  SELECT (created_at AT TIME ZONE 'UTC')::date AS day, api_key_id, status,
    count(*) AS runs, count(charged_interactions) AS requests, coalesce(sum(charged_interactions), 0) AS interactions
  FROM simulations WHERE account_id = ${accountId} AND period_start = ${PERIOD}
  GROUP BY GROUPING SETS ((1, status), (api_key_id, status))
`;

/** The rollup's figures for the account equal the ledger's own sums (the triggers counted every row). */
const checkRollup = async (pool: DatabasePool, accountId: string): Promise<void> => {
  const differences = await pool.oneFirst(sql.unsafe`
    WITH ledger AS (
      SELECT (created_at AT TIME ZONE 'UTC')::date AS day, api_key_id, status, count(*) AS runs,
        count(charged_interactions) AS requests, coalesce(sum(charged_interactions), 0) AS interactions
      FROM simulations WHERE account_id = ${accountId} GROUP BY 1, 2, 3
    ), rollup AS (
      SELECT day, api_key_id, status, runs, requests, interactions FROM usage_daily
      WHERE account_id = ${accountId} AND runs <> 0
    )
    SELECT count(*)::int FROM ((SELECT * FROM ledger EXCEPT SELECT * FROM rollup) UNION ALL (SELECT * FROM rollup EXCEPT SELECT * FROM ledger)) AS d
  `);
  console.log(`\nrollup equals the ledger's sums: ${differences === 0 ? 'yes' : `NO (${String(differences)} buckets differ)`}`);
};

const settledRuns = (accountId: string, keyId: string, size: number): LedgerRowInput[] =>
  Array.from({ length: size }, (_, index) => ({
    simulationId: randomUUID(),
    accountId,
    apiKeyId: index % 2 === 0 ? keyId : null,
    sessionId: index % 2 === 0 ? null : randomUUID(),
    preset: 'finance',
    profile: 'p',
    seed: index,
    numInteractions: 100,
    periodStart: new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 1)).toISOString(),
    serviceVersion: '2.0.0',
    status: 'completed',
    createdAt: new Date().toISOString(),
    startedAt: null,
    finishedAt: new Date().toISOString(),
    computeMs: 3,
    chargedInteractions: 100,
  }));

/**
 * Microseconds per ledger statement: `rounds` batches of `size` settled runs (a run's one row), alternating
 * triggers on and off round by round so that both see the same machine load.
 */
const writeCost = async (pool: DatabasePool, accountId: string, keyId: string, size: number, rounds: number): Promise<{ on: number; off: number }> => {
  const spent = { on: 0, off: 0 };
  for (let round = 0; round < rounds * 2; round += 1) {
    const mode = round % 2 === 0 ? 'on' : 'off';
    await pool.query(sql.unsafe`ALTER TABLE simulations ${mode === 'on' ? sql.fragment`ENABLE` : sql.fragment`DISABLE`} TRIGGER USER`);
    const batch = settledRuns(accountId, keyId, size);
    const started = performance.now();
    await writeLedger(pool, batch);
    spent[mode] += performance.now() - started;
  }
  await pool.query(sql.unsafe`ALTER TABLE simulations ENABLE TRIGGER USER`);
  return { on: (spent.on * 1000) / (rounds * 2), off: (spent.off * 1000) / (rounds * 2) };
};

await withScratchDatabase('usage', async ({ url, pool: openPool }) => {
  const { accountId, keyId, fillMs } = await fill(url);
  const pool = await openPool();
  console.log(`filled ${ROWS} rows for one account and 300000 for 2000 others in ${Math.round(fillMs)} ms (through the triggers)`);
  await checkRollup(pool, accountId);
  const input = { accountId, periodStart: PERIOD };
  const explain = (title: string, statement: ReturnType<typeof dailyUsageStatement>) => explainAnalyze(pool, title, statement, TARGET_MS);
  const times = [
    await explain('GET /v1/usage/daily (the whole account)', dailyUsageStatement(input)),
    await explain('GET /v1/usage/daily?credential=<key id>', dailyUsageStatement({ ...input, credential: { type: 'api_key', apiKeyId: keyId } })),
    await explain('GET /v1/usage/daily?credential=session', dailyUsageStatement({ ...input, credential: { type: 'session' } })),
  ];
  const baseline = await explain('baseline: the same sums from the ledger itself (no rollup)', fromLedger(accountId));
  const slowest = Math.max(...times);
  console.log(`\nslowest rollup read: ${slowest} ms (target < ${TARGET_MS} ms); the ledger sum: ${baseline} ms, ${Math.round(baseline / slowest)} x slower`);

  // On an account of their own: rows written with the triggers off are missing from its rollup.
  const writer = await pool.oneFirst(sql.unsafe`
    INSERT INTO accounts (email, display_name, plan) VALUES ('writer@example.com', 'Writer', 'enterprise') RETURNING id
  `);
  const writerKey = await pool.oneFirst(sql.unsafe`
    INSERT INTO api_keys (account_id, name, key_digest, key_prefix) VALUES (${String(writer)}, 'w', '\\x01', 'bs_live_wrt') RETURNING id
  `);
  // Warm-up, then the measured rounds.
  await writeCost(pool, String(writer), String(writerKey), 1, 50);
  console.log('\nledger writes (one statement of settled rows), per statement:');
  for (const [size, rounds] of [[1, 400], [20, 200], [100, 60]] as const) {
    const { on, off } = await writeCost(pool, String(writer), String(writerKey), size, rounds);
    console.log(`  batch of ${String(size).padStart(3)}: triggers on ${Math.round(on)} µs, off ${Math.round(off)} µs, ratio ${(on / off).toFixed(2)}`);
  }
  await checkRollup(pool, accountId);
});
