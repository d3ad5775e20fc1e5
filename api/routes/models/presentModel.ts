import type { StoredModel } from '../../models/createModelStore.ts';
import type { ModelRow } from '../../../shared/db/queries/models.ts';
import type { ModelResponse } from './schema.ts';

/** The Model resource of a stored version (docs/models.md#storing-a-model-put-v1modelsname). */
export const presentModel = (row: ModelRow, stored: StoredModel): ModelResponse => ({
  name: row.name,
  version: row.version,
  digest: row.digest,
  created_at: row.created_at,
  definition: stored.spec.definition as ModelResponse['definition'],
  warnings: row.warnings,
  catalog: stored.catalog,
});
