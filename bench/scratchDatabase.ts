// The scratch PostgreSQL database of a benchmark at scale (bench/history.ts, bench/usage.ts): made, migrated,
// filled through a plain client, its statements measured with EXPLAIN (ANALYZE, BUFFERS), and dropped.
// BENCH_POSTGRES_URL overrides postgres://postgres@127.0.0.1:5432/postgres.
import pg from 'pg';
import { type DatabasePool, type FragmentSqlToken, sql } from 'slonik';
import { createDatabasePool } from '../shared/db/createDatabasePool.ts';
import { migrate } from '../shared/db/migrate.ts';

const ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A plain client: the service's pool has a statement timeout sized for requests, not for filling millions of rows. */
export const withPlainClient = async <T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
};

export interface ScratchDatabase {
  readonly url: string;
  /** The service's own pool on it (one connection), made on first use and ended with the database. */
  readonly pool: () => Promise<DatabasePool>;
}

/** `bss_bench_<name>_<pid>`, migrated, for the length of `use`; dropped afterwards whatever happens. */
export const withScratchDatabase = async <T>(name: string, use: (database: ScratchDatabase) => Promise<T>): Promise<T> => {
  const database = `bss_bench_${name}_${process.pid}`;
  await withPlainClient(ADMIN_URL, (client) => client.query(`CREATE DATABASE ${database}`));
  const url = new URL(ADMIN_URL);
  url.pathname = `/${database}`;
  let pool: Promise<DatabasePool> | undefined;
  try {
    await migrate(url.toString());
    return await use({ url: url.toString(), pool: () => (pool ??= createDatabasePool(url.toString(), { maxPoolSize: 1 })) });
  } finally {
    await (await pool?.catch(() => undefined))?.end();
    await withPlainClient(ADMIN_URL, (client) => client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`));
  }
};

const planOf = (rows: readonly unknown[]): string[] => rows.map((row) => String((row as Record<string, unknown>)['QUERY PLAN']));

/** Prints a statement's plan under `title` and returns its execution time in ms, the last of five (the first reads pages in). */
export const explainAnalyze = async (pool: DatabasePool, title: string, statement: FragmentSqlToken, targetMs: number): Promise<number> => {
  let plan: string[] = [];
  for (let run = 0; run < 5; run += 1) {
    plan = planOf(await pool.any(sql.unsafe`EXPLAIN (ANALYZE, BUFFERS) ${statement}`));
  }
  const executionMs = Number(/Execution Time: ([\d.]+) ms/.exec(plan.join('\n'))?.[1] ?? Number.NaN);
  console.log(`\n=== ${title}: ${executionMs} ms ${executionMs < targetMs ? '(under' : '(OVER'} ${targetMs} ms)`);
  console.log(plan.join('\n'));
  return executionMs;
};

/** A statement's plan alone, once, for what has no target. */
export const explainOnce = async (pool: DatabasePool, statement: FragmentSqlToken): Promise<string> =>
  planOf(await pool.any(sql.unsafe`EXPLAIN (ANALYZE, BUFFERS) ${statement}`)).join('\n');
