import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const MIGRATIONS_DIRECTORY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');

// Any constant both runners agree on; it serializes concurrent migrators on one database.
const MIGRATION_LOCK_KEY = 7_302_511_991;

export interface Migration {
  readonly id: number;
  readonly name: string;
  readonly sql: string;
}

export const readMigrations = async (directory = MIGRATIONS_DIRECTORY): Promise<Migration[]> => {
  const files = (await readdir(directory)).filter((file) => /^\d{4}_[a-z0-9_]+\.sql$/.test(file)).sort();
  return Promise.all(
    files.map(async (file) => ({
      id: Number(file.slice(0, 4)),
      name: file.replace(/\.sql$/, ''),
      sql: await readFile(path.join(directory, file), 'utf8'),
    })),
  );
};

/** A digest of every migration's text: test template databases are keyed by it, so edits rebuild them. */
export const migrationsDigest = async (directory = MIGRATIONS_DIRECTORY): Promise<string> => {
  const hash = createHash('sha256');
  for (const migration of await readMigrations(directory)) {
    hash.update(migration.name).update('\0').update(migration.sql).update('\0');
  }
  return hash.digest('hex');
};

/**
 * Applies pending migrations, each in its own transaction that also records it. The transaction-scoped
 * advisory lock makes racing runners take turns: the second sees the first's record and skips.
 *
 * Migrations are whole SQL files with several statements, which only the simple query protocol runs;
 * that is why this uses a bare `pg` client rather than slonik, which always sends parameterised queries.
 */
export const migrate = async (databaseUrl: string, directory = MIGRATIONS_DIRECTORY): Promise<string[]> => {
  const migrations = await readMigrations(directory);
  const client = new pg.Client({ connectionString: databaseUrl, application_name: 'migrate' });
  await client.connect();
  const applied: string[] = [];
  try {
    await inTransaction(client, async () => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        id integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
    });
    for (const migration of migrations) {
      await inTransaction(client, async () => {
        await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
        const done = await client.query('SELECT 1 FROM schema_migrations WHERE id = $1', [migration.id]);
        if (done.rowCount === 0) {
          await client.query(migration.sql);
          await client.query('INSERT INTO schema_migrations (id, name) VALUES ($1, $2)', [migration.id, migration.name]);
          applied.push(migration.name);
        }
      });
    }
  } finally {
    await client.end();
  }
  return applied;
};

const inTransaction = async (client: pg.Client, work: () => Promise<void>): Promise<void> => {
  await client.query('BEGIN');
  try {
    await work();
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
};
