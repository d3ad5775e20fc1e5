import type { Middleware, ParameterizedContext } from 'koa';
import type { SimulationRunRow } from '../../shared/db/queries/simulationRuns.ts';
import { findRun } from './findRun.ts';
import { resolvePreset } from '../../shared/engine/index.ts';
import { AppError } from '../../shared/errors/AppError.ts';
import { engineVersionRetired, presetUnavailable, simulationNotCompleted, simulationNotFound } from '../../shared/errors/errors.ts';
import type { AppState } from '../AppState.ts';
import { requirePrincipal } from '../auth/requirePrincipal.ts';
import { isPresetAvailable } from '../routes/presets/isPresetAvailable.ts';
import { isEngineVersionServed } from './isEngineVersionServed.ts';
import type { SimulationRequest } from './SimulationRequest.ts';
import type { Services } from '../Services.ts';
import type { SimulationAdmission } from './SimulationAdmission.ts';
import { holdReplayAdmission } from '../limits/holdReplayAdmission.ts';

type ReplayState = AppState & {
  replay: SimulationRequest;
  admission: SimulationAdmission;
  /** The ledger's compute_ms of the run, which its replayed JSON body states again. */
  recordedComputeMs: number | null;
  /** Set by a download link (api/routes/downloads): the run it names. */
  linkSimulationId?: string;
};

/** Why a run cannot be replayed, or the request that replays it. */
const toReplay = async (services: Services, accountId: string, row: SimulationRunRow | null): Promise<SimulationRequest | AppError> => {
  if (row === null) {
    return simulationNotFound();
  }
  if (row.status !== 'completed') {
    return simulationNotCompleted(row.status);
  }
  if (!isEngineVersionServed(row.service_version)) {
    return engineVersionRetired(row.service_version);
  }
  // What a replay of the row runs again: its recorded inputs, under its recorded engine.
  const recorded = {
    profile: row.profile,
    seed: row.seed,
    numInteractions: row.num_interactions,
    serviceVersion: row.service_version,
    scenario: row.scenario ?? undefined,
    timing: row.timing ?? undefined,
    replayOf: { simulationId: row.id, serviceVersion: row.service_version },
  };
  if (row.model_version !== null) {
    // A model run replays its recorded version, even one deleted since (docs/models.md).
    const stored = await services.models.recorded(accountId, row.preset, row.model_version);
    if (stored === null || stored.spec.digest !== row.model_digest) {
      return simulationNotFound();
    }
    return { preset: row.preset, model: stored.spec, ...recorded };
  }
  const preset = resolvePreset(row.preset);
  if (preset === undefined || !isPresetAvailable(services.config, preset)) {
    return presetUnavailable(row.preset);
  }
  return { preset: preset.name, ...recorded };
};

/**
 * The checks of GET /v1/simulations/{simulation_id}/records, in the order of POST /v1/simulations:
 * authenticate (before this) → rate limit → the run (404, 409, 410) → per-request maximum (403) →
 * concurrency slot; the admission itself is the replay admission every replay shares
 * (api/limits/holdReplayAdmission.ts). The run is looked up first but its refusal is answered only after
 * the rate limiter counted the request, so probing ids costs rate like any other attempt.
 */
export const admitReplayRequest = (
  services: Services,
  // The run's id: the route's `simulation_id` unless the route knows it otherwise (a download link).
  simulationIdOf: (ctx: ParameterizedContext<ReplayState>) => string = (ctx) => (ctx.params as Partial<Record<string, string>>).simulation_id ?? '',
  // A route's own reason not to replay a run it found (the dataset's: a run without a scenario), answered
  // like the others, after the rate limiter counted the request and before any slot is taken.
  refuse: (ctx: ParameterizedContext<ReplayState>, replay: SimulationRequest) => AppError | undefined = () => undefined,
): Middleware<ReplayState> =>
  async function admit(ctx, next) {
    const principal = requirePrincipal(ctx.state);
    const row = await findRun(services, { accountId: principal.accountId, id: simulationIdOf(ctx) });
    const found = await toReplay(services, principal.accountId, row);
    const replay = found instanceof AppError ? found : (refuse(ctx, found) ?? found);
    await holdReplayAdmission(ctx, services, replay, async (admission) => {
      if (!(replay instanceof AppError)) {
        ctx.state.replay = replay;
        ctx.state.recordedComputeMs = row?.compute_ms ?? null;
      }
      ctx.state.admission = admission;
      await next();
    });
  };
