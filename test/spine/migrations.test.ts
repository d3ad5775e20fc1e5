import test from 'ava';
import pg from 'pg';
import { migrate, readMigrations } from '../../shared/db/migrate.ts';
import { TEST_POSTGRES_URL } from '../helpers/testDatabase.ts';

const createEmptyDatabase = async (): Promise<{ url: string; drop: () => Promise<void> }> => {
  const name = `bss_migrate_${process.pid}_${Math.random().toString(16).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
  await admin.end();
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
      await client.end();
    },
  };
};

test('migrations apply once and a second run applies nothing', async (t) => {
  const database = await createEmptyDatabase();
  t.teardown(database.drop);
  const all = (await readMigrations()).map((migration) => migration.name);
  t.deepEqual(await migrate(database.url), all);
  t.deepEqual(await migrate(database.url), []);
});

test('two migrators racing on one database apply every migration exactly once', async (t) => {
  const database = await createEmptyDatabase();
  t.teardown(database.drop);
  const results = await Promise.all([migrate(database.url), migrate(database.url), migrate(database.url)]);
  const applied = results.flat().sort();
  t.deepEqual(applied, (await readMigrations()).map((migration) => migration.name).sort());
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  t.teardown(() => client.end());
  const plans = await client.query<{ name: string; requests_per_minute: number; max_active_api_keys: number }>(
    'SELECT name, requests_per_minute, max_active_api_keys FROM plans ORDER BY requests_per_minute',
  );
  t.deepEqual(plans.rows, [
    { name: 'free', requests_per_minute: 5, max_active_api_keys: 1 },
    { name: 'pro', requests_per_minute: 60, max_active_api_keys: 5 },
    { name: 'enterprise', requests_per_minute: 1200, max_active_api_keys: 50 },
  ]);
});
