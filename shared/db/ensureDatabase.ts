import pg from 'pg';

const INVALID_CATALOG_NAME = '3D000';

/**
 * Creates the configured database when the server is up but the database is not there yet, so a fresh
 * PostgreSQL works with one command. Any other failure is rethrown for the caller to explain.
 */
export const ensureDatabase = async (databaseUrl: string): Promise<'exists' | 'created'> => {
  const probe = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 3000 });
  try {
    await probe.connect();
    return 'exists';
  } catch (error) {
    if ((error as { code?: unknown }).code !== INVALID_CATALOG_NAME) {
      throw error;
    }
  } finally {
    await probe.end().catch(() => {});
  }
  const url = new URL(databaseUrl);
  const name = decodeURIComponent(url.pathname.slice(1));
  url.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: url.toString(), connectionTimeoutMillis: 3000 });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
  } finally {
    await admin.end();
  }
  return 'created';
};
