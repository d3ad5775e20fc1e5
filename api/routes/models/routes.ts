import Router from '@koa/router';
import { deleteModel, findLatestModel, findModelVersion, listModels } from '../../../shared/db/queries/models.ts';
import { MODEL_BODY_LIMIT_BYTES, modelNotFound, validationFailed } from '../../../shared/errors/errors.ts';
import { checkModelDefinition, modelDigest } from '../../../shared/models/index.ts';
import type { AppState } from '../../AppState.ts';
import { requirePrincipal } from '../../auth/requirePrincipal.ts';
import { jsonBody } from '../../middleware/jsonBody.ts';
import { authenticate } from '../../middleware/authenticate.ts';
import { putModel } from '../../models/putModel.ts';
import type { Services } from '../../Services.ts';
import { checkModelName } from './checkModelName.ts';
import { countInRateWindow } from '../countInRateWindow.ts';
import { presentModel } from './presentModel.ts';
import type { ModelSummary, ModelValidation } from './schema.ts';

// A version in a path: 1, 2, …; anything else names no version (404, like an unknown one).
const VERSION = /^[1-9][0-9]{0,8}$/;

/**
 * An account's own models (docs/models.md#the-http-api): immutable versions per name, written by
 * PUT, read, listed, deleted, and checked without storing by validate. Session or API key; a session's
 * writes pass the CSRF check in authenticate. Unknown, deleted and other accounts' models are one 404.
 */
export const modelRoutes = (services: Services): Router<AppState> => {
  const router = new Router<AppState>();
  const readDefinition = jsonBody({ limitBytes: MODEL_BODY_LIMIT_BYTES });

  router.post('/v1/models/validate', authenticate(services), countInRateWindow(services), readDefinition, async (ctx) => {
    const check = checkModelDefinition(ctx.state.body);
    const body: ModelValidation = {
      valid: check.valid,
      issues: [...check.issues],
      warnings: [...check.warnings],
      // Off the event loop: a large definition's sample takes a while (api/models/createSamplePool.ts).
      sample: check.definition === undefined ? null : await services.samples.run(check.definition),
    };
    ctx.set('Cache-Control', 'no-store');
    ctx.body = body;
  });

  router.put('/v1/models/:name', authenticate(services), readDefinition, async (ctx) => {
    const { accountId } = requirePrincipal(ctx.state);
    const name = ctx.params.name ?? '';
    // Every problem at once: the name's and the definition's.
    const nameIssues = checkModelName(name);
    const check = checkModelDefinition(ctx.state.body);
    if (nameIssues.length > 0 || !check.valid || check.definition === undefined) {
      throw validationFailed([...nameIssues, ...check.issues]);
    }
    const { created, row } = await putModel(services.pool, {
      accountId,
      name,
      definition: check.definition,
      digest: modelDigest(check.definition),
      warnings: check.warnings,
    });
    ctx.set('Cache-Control', 'no-store');
    ctx.status = created ? 201 : 200;
    ctx.body = presentModel(row, services.models.ofRow(accountId, row));
  });

  router.get('/v1/models', authenticate(services), async (ctx) => {
    const { accountId } = requirePrincipal(ctx.state);
    const rows = await listModels(services.pool, accountId);
    const body: ModelSummary[] = rows.map((row) => ({ name: row.name, version: row.version, digest: row.digest, created_at: row.created_at, description: row.description }));
    ctx.set('Cache-Control', 'no-store');
    ctx.body = body;
  });

  router.get('/v1/models/:name', authenticate(services), async (ctx) => {
    const { accountId } = requirePrincipal(ctx.state);
    const row = await findLatestModel(services.pool, { accountId, name: ctx.params.name ?? '' });
    if (row === null) {
      throw modelNotFound();
    }
    ctx.set('Cache-Control', 'no-store');
    ctx.body = presentModel(row, services.models.ofRow(accountId, row));
  });

  router.get('/v1/models/:name/versions/:version', authenticate(services), async (ctx) => {
    const { accountId } = requirePrincipal(ctx.state);
    const version = ctx.params.version ?? '';
    const row = VERSION.test(version) ? await findModelVersion(services.pool, { accountId, name: ctx.params.name ?? '', version: Number(version) }) : null;
    if (row === null) {
      throw modelNotFound();
    }
    ctx.set('Cache-Control', 'no-store');
    ctx.body = presentModel(row, services.models.ofRow(accountId, row));
  });

  router.delete('/v1/models/:name', authenticate(services), async (ctx) => {
    const { accountId } = requirePrincipal(ctx.state);
    const name = ctx.params.name ?? '';
    if (!(await deleteModel(services.pool, { accountId, name }))) {
      throw modelNotFound();
    }
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { status: 'deleted', name };
  });

  return router;
};
