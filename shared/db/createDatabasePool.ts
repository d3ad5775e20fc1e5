import { createPool, type DatabasePool } from 'slonik';
import { createTypeParserPreset } from 'slonik';
import { createResultParserInterceptor } from './createResultParserInterceptor.ts';

// Timestamps leave the database as the specification's ISO 8601 UTC strings ending in `Z`, so no
// presenter has to remember to convert them.
const toIsoString = (value: string | null): string | null => (value === null ? null : new Date(value).toISOString());

// Every int8 this schema holds (seeds below 2^32, interaction quotas, counts) is far below 2^53, so a
// plain number is exact and spares every caller BigInt arithmetic.
const toNumber = (value: string | null): number | null => (value === null ? null : Number(value));

export interface DatabasePoolOptions {
  readonly maxPoolSize?: number;
  readonly connectionTimeoutMs?: number;
}

export const createDatabasePool = async (connectionUri: string, options: DatabasePoolOptions = {}): Promise<DatabasePool> => {
  const typeParsers = createTypeParserPreset().filter((parser) => parser.name !== 'timestamptz' && parser.name !== 'int8');
  return createPool(connectionUri, {
    maxPoolSize: options.maxPoolSize ?? 10,
    connectionTimeout: options.connectionTimeoutMs ?? 5000,
    // Stack capture costs a few microseconds per query on the hot path and only helps debugging.
    captureStackTrace: false,
    // slonik's default sends DISCARD ALL on every release: a second round trip and PostgreSQL work per
    // query. Nothing here leaves session state behind (locks are transaction-scoped, settings SET LOCAL or
    // set_config(…, true), no prepared statements, temporary tables or LISTEN), so there is nothing to reset.
    resetConnection: async () => {},
    statementTimeout: 10_000,
    typeParsers: [...typeParsers, { name: 'timestamptz', parse: toIsoString }, { name: 'int8', parse: toNumber }],
    interceptors: [createResultParserInterceptor()],
  });
};
