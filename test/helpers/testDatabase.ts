import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrate, migrationsDigest } from '../../shared/db/migrate.ts';

export const TEST_POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const TEMPLATE_LOCK_KEY = 7_302_511_992;
const OBJECT_IN_USE = '55006';

const urlFor = (database: string): string => {
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${database}`;
  return url.toString();
};

const withAdmin = async <T>(work: (client: pg.Client) => Promise<T>): Promise<T> => {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL, application_name: 'test-admin' });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
};

/**
 * A migrated template, built once per migration digest (an edited migration gets a fresh template), under
 * an advisory lock so that parallel test files build it once.
 */
const ensureTemplate = async (): Promise<string> => {
  const name = `bss_template_${(await migrationsDigest()).slice(0, 16)}`;
  await withAdmin(async (client) => {
    await client.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK_KEY]);
    try {
      const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (exists.rowCount === 0) {
        const building = `${name}_building`;
        await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(building)}`);
        await client.query(`CREATE DATABASE ${pg.escapeIdentifier(building)}`);
        await migrate(urlFor(building));
        // Renamed only once complete, so a crash mid-build never leaves a half-migrated template.
        await client.query(`ALTER DATABASE ${pg.escapeIdentifier(building)} RENAME TO ${pg.escapeIdentifier(name)}`);
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK_KEY]);
    }
  });
  return name;
};

export interface TestDatabase {
  readonly name: string;
  readonly url: string;
  readonly drop: () => Promise<void>;
}

/** A database of its own for one test file, cloned from the migrated template in milliseconds. */
export const createTestDatabase = async (): Promise<TestDatabase> => {
  const template = await ensureTemplate();
  const name = `bss_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  await withAdmin(async (client) => {
    for (let attempt = 0; ; attempt += 1) {
      try {
        await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)} TEMPLATE ${pg.escapeIdentifier(template)}`);
        return;
      } catch (error) {
        // Another file cloning the same template at this instant; clones are quick, so try again.
        if ((error as { code?: unknown }).code !== OBJECT_IN_USE || attempt >= 20) {
          throw error;
        }
        await new Promise((resolve) => setTimeout(resolve, 50 + attempt * 25));
      }
    }
  });
  return {
    name,
    url: urlFor(name),
    drop: () => withAdmin(async (client) => {
      await client.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
    }),
  };
};
