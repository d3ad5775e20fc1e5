import Router from '@koa/router';
import { describeError } from '../../../shared/errors/describeError.ts';
import { ClientAbortedError, validationFailed } from '../../../shared/errors/errors.ts';
import type { AppState } from '../../AppState.ts';
import { AppError } from '../../../shared/errors/AppError.ts';
import type { RunSpecification } from '../../../shared/runs/runSpecification.ts';
import { DatasetArchive } from '../../datasets/DatasetArchive.ts';
import { numericFields } from '../../datasets/datasetLayouts.ts';
import { type RecordRun, streamRunRecords } from '../../datasets/streamRunRecords.ts';
import { requirePrincipal } from '../../auth/requirePrincipal.ts';
import { writeDataset } from '../../datasets/writeDataset.ts';
import { authenticate } from '../../middleware/authenticate.ts';
import { validateQuery } from '../../middleware/validate.ts';
import { admitReplayRun } from '../../runs/admitReplayRun.ts';
import { findReplay } from '../../runs/findReplay.ts';
import type { Services } from '../../Services.ts';
import type { DatasetQuery } from './datasetSchema.ts';
import { datasetQuerySchema } from './datasetSchema.ts';
import { holdWhileAnswering } from './holdWhileAnswering.ts';
import { presentRateLimit } from './presentRateLimit.ts';

/** Why a found, completed run makes no dataset of this query: it has no scenario, or no such field. */
const refuseDataset = (query: DatasetQuery, replay: RunSpecification): AppError | undefined => {
  if (replay.scenario === undefined) {
    return validationFailed([{ path: 'simulation_id', message: 'This run has no scenario: a dataset needs the labelled events of one.' }]);
  }
  const fields = numericFields(replay.serviceVersion, replay.preset, replay.model);
  if (query.field !== undefined && !fields.includes(query.field)) {
    return validationFailed([{ path: 'field', message: `Not a numeric field of ${replay.preset}; one of: ${fields.join(', ')}.` }]);
  }
  return undefined;
};

/**
 * GET /v1/simulations/{simulation_id}/dataset: a completed scenario run as a zip archive a detection
 * benchmark loads (docs/datasets.md). authenticate → query (422) → the run looked up → the replay
 * admission every replay shares (rate limit, then 404, 409, 422, then a slot; no quota) → the archive,
 * streamed as it is made.
 */
export const datasetRoutes = (services: Services): Router<AppState> => {
  const router = new Router<AppState>();
  router.get('/v1/simulations/:simulation_id/dataset', authenticate(services), validateQuery(datasetQuerySchema), async function dataset(ctx) {
    const principal = requirePrincipal(ctx.state);
    const query: DatasetQuery = ctx.state.input;
    const found = await findReplay(services, { accountId: principal.accountId, simulationId: ctx.params.simulation_id ?? '' });
    const replay = found instanceof AppError ? found : (refuseDataset(query, found.spec) ?? found.spec);
    const admission = await admitReplayRun(services, { principal, requestId: ctx.state.requestId, replay });
    presentRateLimit(ctx, admission.rateLimit);
    if ('refusal' in admission) {
      throw admission.refusal;
    }
    const { run } = admission;
    const { spec } = run;
    await holdWhileAnswering(ctx, services.logger, run, () => {
      // Answered 503 now rather than as a cut archive.
      services.simulations.assertAvailable();
      const archive = new DatasetArchive();
      const gone = new AbortController();
      ctx.res.once('close', () => {
        if (!ctx.res.writableFinished) gone.abort();
      });
      ctx.set('Cache-Control', 'no-store');
      ctx.set('Content-Disposition', `attachment; filename="${spec.simulationId}-${query.layout}.zip"`);
      ctx.type = 'application/zip';
      ctx.body = archive.stream;
      const source = { records: (each: RecordRun, onRecord: Parameters<typeof streamRunRecords>[2]) => streamRunRecords(services, each, onRecord, () => archive.ready(), gone.signal) };
      // A model run's spec names its recorded version's definition (api/runs/findReplay.ts).
      void writeDataset(archive, source, spec, { layout: query.layout, field: query.field })
        .catch((error: unknown) => {
          if (!(error instanceof ClientAbortedError)) services.logger.warn({ simulation_id: spec.simulationId, error: describeError(error) }, 'dataset failed mid-stream; response cut');
          // Ends the response without its terminating chunk: never an archive that looks whole.
          archive.stream.destroy(error instanceof Error ? error : new Error(String(error)));
        })
        .finally(() => {
          run.release().catch((error: unknown) => services.logger.warn({ simulation_id: spec.simulationId, error: describeError(error) }, 'could not release a dataset slot'));
        });
      return Promise.resolve();
    });
  });
  return router;
};
