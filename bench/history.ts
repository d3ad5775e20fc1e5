// History paging at scale (issue 15): 1,000,000 ledger rows for one account (and 300,000 of 30 others),
// then EXPLAIN (ANALYZE, BUFFERS) of the exact statements GET /v1/simulations and GET /v1/simulations/{id}
// run: the first page, a page deep in the history, each filter (a rare preset, the rarest status, both).
// Target: every page under 5 ms. Uses a scratch database of its own, dropped at the end.
// Run: npm run bench:history   (BENCH_POSTGRES_URL overrides postgres://postgres@127.0.0.1:5432/postgres)
import { sql } from 'slonik';
import { type ListSimulationRunsInput, simulationRunsPage } from '../shared/db/queries/simulationRuns.ts';
import { explainAnalyze, explainOnce, withPlainClient, withScratchDatabase } from './scratchDatabase.ts';

const ROWS = 1_000_000;
const TARGET_MS = 5;

const fill = (url: string): Promise<{ accountId: string; middle: { createdAt: string; id: string } }> =>
  withPlainClient(url, async (client) => {
    const account = await client.query<{ id: string }>(
      "INSERT INTO accounts (email, display_name, plan) VALUES ('bench@example.com', 'Bench', 'enterprise') RETURNING id",
    );
    const accountId = account.rows[0]?.id ?? '';
    const key = await client.query<{ id: string }>(
      "INSERT INTO api_keys (account_id, name, key_digest, key_prefix) VALUES ($1, 'bench', '\\x00', 'bs_live_benc') RETURNING id",
      [accountId],
    );
    // Presets 60/25/14/1 %, statuses 90/5/4.9/0.1 %, one run every 2 s over ~23 days; the others' rows interleave.
    await client.query(
      `INSERT INTO simulations (id, account_id, api_key_id, preset, profile, seed, num_interactions, status, period_start, created_at, finished_at, compute_ms)
       SELECT gen_random_uuid(), $1, $2,
         CASE WHEN g % 100 < 60 THEN 'finance' WHEN g % 100 < 85 THEN 'education' WHEN g % 100 < 99 THEN 'mobile_app' ELSE 'healthcare' END,
         'p', g, 100,
         CASE WHEN g % 1000 < 900 THEN 'completed' WHEN g % 1000 < 950 THEN 'failed' WHEN g % 1000 < 999 THEN 'timed_out' ELSE 'queued' END,
         '2026-01-01', '2026-01-01'::timestamptz + g * interval '2 seconds', '2026-01-01'::timestamptz + g * interval '2 seconds', 3
       FROM generate_series(1, $3::int) AS g`,
      [accountId, key.rows[0]?.id, ROWS],
    );
    await client.query("INSERT INTO accounts (email, display_name, plan) SELECT 'other' || g || '@example.com', 'Other', 'free' FROM generate_series(1, 30) AS g");
    await client.query(
      `INSERT INTO simulations (id, account_id, preset, profile, seed, num_interactions, status, period_start, created_at)
       SELECT gen_random_uuid(), accounts.id, 'finance', 'p', g, 10, 'completed', '2026-01-01', '2026-01-01'::timestamptz + g * interval '20 seconds'
       FROM accounts CROSS JOIN generate_series(1, 10000) AS g WHERE accounts.email LIKE 'other%'`,
    );
    await client.query('VACUUM ANALYZE simulations');
    const middle = await client.query<{ createdAt: string; id: string }>(
      `SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "createdAt", id FROM simulations
       WHERE account_id = $1 AND seed = $2`,
      [accountId, ROWS / 2],
    );
    const row = middle.rows[0];
    if (row === undefined) {
      throw new Error('the middle row is missing');
    }
    return { accountId, middle: row };
  });

await withScratchDatabase('history', async ({ url, pool: openPool }) => {
  const started = performance.now();
  const { accountId, middle } = await fill(url);
  const pool = await openPool();
  console.log(`filled ${ROWS} rows for one account and 300000 for 30 others in ${Math.round(performance.now() - started)} ms`);
  const page = (input: Omit<ListSimulationRunsInput, 'accountId'>) => simulationRunsPage({ accountId, ...input });
  const explain = (title: string, statement: ReturnType<typeof simulationRunsPage>) => explainAnalyze(pool, title, statement, TARGET_MS);
  const times = [
    await explain('first page, limit 20 (+1)', page({ limit: 21 })),
    await explain('page 25,000 (cursor at the 500,000th run), limit 20 (+1)', page({ limit: 21, after: middle })),
    await explain('limit 100 (+1)', page({ limit: 101 })),
    await explain('preset=healthcare (1 % of runs)', page({ limit: 21, preset: 'healthcare' })),
    await explain('status=queued (0.1 % of runs)', page({ limit: 21, status: 'queued' })),
    await explain('preset=healthcare&status=failed after the cursor (no such run: the empty answer)', page({ limit: 21, preset: 'healthcare', status: 'failed', after: middle })),
    await explain('preset=healthcare&status=queued (0.1 % of runs)', page({ limit: 21, preset: 'healthcare', status: 'queued' })),
  ];
  const one = await explainOnce(pool, sql.fragment`SELECT * FROM simulations WHERE id = ${middle.id}::uuid AND account_id = ${accountId}`);
  console.log(`\n=== one run by id (GET /v1/simulations/{id}, primary key)\n${one}`);
  console.log(`\nslowest page: ${Math.max(...times)} ms (target < ${TARGET_MS} ms)`);
});
