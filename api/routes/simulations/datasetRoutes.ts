import Router from '@koa/router';
import type { ParameterizedContext } from 'koa';
import { describeError } from '../../../shared/errors/describeError.ts';
import { ClientAbortedError, internalError, validationFailed } from '../../../shared/errors/errors.ts';
import type { AppState } from '../../AppState.ts';
import type { AppError } from '../../../shared/errors/AppError.ts';
import { DatasetArchive } from '../../datasets/DatasetArchive.ts';
import { numericFields } from '../../datasets/datasetLayouts.ts';
import { type RecordRun, streamRunRecords } from '../../datasets/streamRunRecords.ts';
import { requirePrincipal } from '../../auth/requirePrincipal.ts';
import { writeDataset } from '../../datasets/writeDataset.ts';
import { authenticate } from '../../middleware/authenticate.ts';
import { validateQuery } from '../../middleware/validate.ts';
import { admitReplayRequest } from '../../simulations/admitReplayRequest.ts';
import type { SimulationAdmission } from '../../simulations/SimulationAdmission.ts';
import type { SimulationRequest } from '../../simulations/SimulationRequest.ts';
import type { Services } from '../../Services.ts';
import type { DatasetQuery } from './datasetSchema.ts';
import { datasetQuerySchema } from './datasetSchema.ts';

type DatasetState = AppState & { input: DatasetQuery; replay: SimulationRequest; admission: SimulationAdmission; recordedComputeMs: number | null };

/** Why a found, completed run makes no dataset of this query: it has no scenario, or no such field. */
const refuseDataset = (ctx: ParameterizedContext, replay: SimulationRequest): AppError | undefined => {
  if (replay.scenario === undefined) {
    return validationFailed([{ path: 'simulation_id', message: 'This run has no scenario: a dataset needs the labelled events of one.' }]);
  }
  // The query passed validateQuery already: a string or absent.
  const field = typeof ctx.query.field === 'string' ? ctx.query.field : undefined;
  const fields = numericFields(replay.serviceVersion, replay.preset, replay.model);
  if (field !== undefined && !fields.includes(field)) {
    return validationFailed([{ path: 'field', message: `Not a numeric field of ${replay.preset}; one of: ${fields.join(', ')}.` }]);
  }
  return undefined;
};

/**
 * GET /v1/simulations/{simulation_id}/dataset: a completed scenario run as a zip archive a detection
 * benchmark loads (docs/datasets.md). authenticate → query (422) → the replay admission every replay
 * shares (rate limit, then 404, 409, 422, then a slot; no quota) → the archive, streamed as it is made.
 */
export const datasetRoutes = (services: Services): Router<AppState> => {
  const router = new Router<AppState>();
  router.get<DatasetState>(
    '/v1/simulations/:simulation_id/dataset',
    authenticate(services),
    validateQuery(datasetQuerySchema),
    admitReplayRequest(services, undefined, refuseDataset),
    async function dataset(ctx) {
      const { replay, admission } = ctx.state;
      const input: DatasetQuery = ctx.state.input;
      if (replay.replayOf === undefined || replay.seed === undefined) throw internalError();
      // Answered 503 now rather than as a cut archive.
      services.simulations.assertAvailable();
      const simulationId = replay.replayOf.simulationId;
      const archive = new DatasetArchive();
      const gone = new AbortController();
      ctx.res.once('close', () => {
        if (!ctx.res.writableFinished) gone.abort();
      });
      // A model run's archive is made from its recorded version, compiled once (api/models/createModelStore.ts).
      const model = replay.model === undefined ? undefined : await services.models.recorded(requirePrincipal(ctx.state).accountId, replay.model.name, replay.model.version);
      if (replay.model !== undefined && model === null) throw internalError();
      const { replayOf, ...fields } = replay;
      const run: RecordRun = {
        ...fields,
        simulationId,
        seed: replay.seed,
        serviceVersion: replayOf.serviceVersion,
        ...(model === null || model === undefined ? {} : { model: model.spec, compiled: model.compiled }),
      };
      ctx.set('Cache-Control', 'no-store');
      ctx.set('Content-Disposition', `attachment; filename="${simulationId}-${input.layout}.zip"`);
      ctx.type = 'application/zip';
      ctx.body = archive.stream;
      const source = { records: (each: RecordRun, onRecord: Parameters<typeof streamRunRecords>[2]) => streamRunRecords(services, each, onRecord, () => archive.ready(), gone.signal) };
      void writeDataset(archive, source, run, { layout: input.layout, field: input.field })
        .catch((error: unknown) => {
          if (!(error instanceof ClientAbortedError)) services.logger.warn({ simulation_id: simulationId, error: describeError(error) }, 'dataset failed mid-stream; response cut');
          // Ends the response without its terminating chunk: never an archive that looks whole.
          archive.stream.destroy(error instanceof Error ? error : new Error(String(error)));
        })
        .finally(() => {
          admission.lease.release().catch((error: unknown) => services.logger.warn({ simulation_id: simulationId, error: describeError(error) }, 'could not release a dataset slot'));
        });
    },
  );
  return router;
};
