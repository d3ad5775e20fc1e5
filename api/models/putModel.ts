import type { DatabasePool } from 'slonik';
import { countLiveModels, findLatestModel, insertModelVersion, lockAccountForModels, type ModelRow } from '../../shared/db/queries/models.ts';
import { invalidCredentials, modelLimitReached } from '../../shared/errors/errors.ts';
import type { ModelDefinition, ModelIssue } from '../../shared/models/index.ts';

export interface PutModelInput {
  readonly accountId: string;
  readonly name: string;
  /** Checked: the language's checker found no problem in it. */
  readonly definition: ModelDefinition;
  readonly digest: string;
  readonly warnings: readonly ModelIssue[];
}

/**
 * Stores a definition as the name's next version, unless it equals the latest one by value (same digest):
 * then nothing is written and that version is the answer. A new name must fit the plan's `max_models`.
 * The account row stays locked from the count to the insert, so concurrent PUTs take turns and never
 * end above the limit, and two PUTs of one name never take one version number.
 */
export const putModel = async (pool: DatabasePool, input: PutModelInput): Promise<{ readonly created: boolean; readonly row: ModelRow }> =>
  pool.transaction(async (transaction) => {
    const account = await lockAccountForModels(transaction, input.accountId);
    if (account === null) {
      // Authenticated a moment ago and gone since.
      throw invalidCredentials();
    }
    const latest = await findLatestModel(transaction, { accountId: input.accountId, name: input.name });
    if (latest !== null && latest.digest === input.digest) {
      return { created: false, row: latest };
    }
    if (latest === null && (await countLiveModels(transaction, input.accountId)) >= account.max_models) {
      throw modelLimitReached(account.max_models);
    }
    const row = await insertModelVersion(transaction, { ...input, definition: input.definition });
    return { created: true, row };
  });
