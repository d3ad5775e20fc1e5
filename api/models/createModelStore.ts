import type { DatabasePool } from 'slonik';
import { findModelRef, findModelVersion, type ModelRow } from '../../shared/db/queries/models.ts';
import { type CompiledModel, compileModel, type ModelCatalog, modelCatalog, type ModelDefinition } from '../../shared/models/index.ts';
import type { ModelSpecification } from '../../shared/runs/runSpecification.ts';

/** A stored model version as a run and the Model resource use it: the definition, compiled, and its catalog. */
export interface StoredModel {
  readonly spec: ModelSpecification;
  readonly catalog: ModelCatalog;
  readonly compiled: CompiledModel;
}

export interface ModelStore {
  /**
   * The live version `name` (its latest) or `name@version` names, or null (unknown, deleted or another
   * account's). One indexed query finds the version; the definition comes from the cache when it has it.
   */
  readonly resolve: (accountId: string, name: string, version?: number) => Promise<StoredModel | null>;
  /** A recorded version, deleted or not: a replay makes its run again whatever became of the model. */
  readonly recorded: (accountId: string, name: string, version: number) => Promise<StoredModel | null>;
  /** A row just read or written, compiled unless the cache has its version already. */
  readonly ofRow: (accountId: string, row: ModelRow) => StoredModel;
}

// Compiled versions a process keeps; evicting one only costs a read and a compile on its next use.
const MAX_CACHED_VERSIONS = 512;

/**
 * The API's model versions, cached by (account, name, version). A version never changes after it is
 * written, so a cached one is never stale; what can change (the latest version of a name, a deletion) is
 * read from PostgreSQL on every resolve, in one primary-key probe without the definition.
 */
export const createModelStore = (pool: DatabasePool): ModelStore => {
  const cache = new Map<string, StoredModel>();
  const keyOf = (accountId: string, name: string, version: number): string => `${accountId}\u0000${name}\u0000${version}`;

  const remember = (key: string, stored: StoredModel): StoredModel => {
    cache.delete(key);
    cache.set(key, stored);
    if (cache.size > MAX_CACHED_VERSIONS) {
      const oldest = cache.keys().next().value;
      if (oldest !== undefined) cache.delete(oldest);
    }
    return stored;
  };

  const fromRow = (row: ModelRow): StoredModel => {
    // Stored only after checking, so the row is a definition; compiled as it is (its digest names it).
    const definition = row.definition as unknown as ModelDefinition;
    const compiled = compileModel(row.name, definition);
    return { spec: { name: row.name, version: row.version, digest: row.digest, definition }, compiled, catalog: modelCatalog(compiled) };
  };

  const cached = (accountId: string, name: string, version: number, digest: string): StoredModel | undefined => {
    const key = keyOf(accountId, name, version);
    const hit = cache.get(key);
    return hit !== undefined && hit.spec.digest === digest ? remember(key, hit) : undefined;
  };

  const load = async (accountId: string, name: string, version: number): Promise<StoredModel | null> => {
    const row = await findModelVersion(pool, { accountId, name, version, deleted: true });
    return row === null ? null : remember(keyOf(accountId, name, version), fromRow(row));
  };

  return {
    resolve: async (accountId, name, version) => {
      const ref = await findModelRef(pool, { accountId, name, version });
      if (ref === null) {
        return null;
      }
      return cached(accountId, name, ref.version, ref.digest) ?? load(accountId, name, ref.version);
    },
    recorded: async (accountId, name, version) => cache.get(keyOf(accountId, name, version)) ?? load(accountId, name, version),
    ofRow: (accountId, row) => cached(accountId, row.name, row.version, row.digest) ?? remember(keyOf(accountId, row.name, row.version), fromRow(row)),
  };
};
