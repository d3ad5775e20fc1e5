import type { Middleware } from 'koa';
import { findSimulationRun, type SimulationRunRow } from '../../shared/db/queries/simulationRuns.ts';
import { resolvePreset } from '../../shared/engine/index.ts';
import { AppError } from '../../shared/errors/AppError.ts';
import { engineVersionRetired, presetUnavailable, simulationNotCompleted, simulationNotFound } from '../../shared/errors/errors.ts';
import type { AppState } from '../AppState.ts';
import { requirePrincipal } from '../auth/requirePrincipal.ts';
import { recordLimitRejection } from '../metrics/recordLimitRejection.ts';
import { isPresetAvailable } from '../routes/presets/isPresetAvailable.ts';
import { isEngineVersionServed } from './isEngineVersionServed.ts';
import type { SimulationRequest } from './runSimulation.ts';
import { holdAdmission } from './holdAdmission.ts';
import type { Services } from '../Services.ts';
import type { SimulationAdmission } from './SimulationAdmission.ts';
import { admitReplay } from '../limits/admitReplay.ts';

type ReplayState = AppState & { replay: SimulationRequest; admission: SimulationAdmission };

/** Why a run cannot be replayed, or the request that replays it. */
const toReplay = (services: Services, row: SimulationRunRow | null): SimulationRequest | AppError => {
  if (row === null) {
    return simulationNotFound();
  }
  if (row.status !== 'completed') {
    return simulationNotCompleted(row.status);
  }
  if (!isEngineVersionServed(row.service_version)) {
    return engineVersionRetired(row.service_version);
  }
  const preset = resolvePreset(row.preset);
  if (preset === undefined || !isPresetAvailable(services.config, preset)) {
    return presetUnavailable(row.preset);
  }
  return {
    preset,
    profile: row.profile,
    seed: row.seed,
    numInteractions: row.num_interactions,
    serviceVersion: row.service_version,
    replayOf: { simulationId: row.id, serviceVersion: row.service_version },
  };
};

/**
 * The checks of GET /v1/simulations/{simulation_id}/records, in the order of POST /v1/simulations:
 * authenticate (before this) → rate limit → the run (404, 409, 410) → concurrency slot. No monthly quota
 * is read or taken: a replay is not a new run. The run is looked up first but its refusal is answered
 * only after the rate limiter counted the request, so the decision is one Redis round trip, and probing
 * ids costs rate like any other attempt.
 */
export const admitReplayRequest = (services: Services): Middleware<ReplayState> =>
  async function admit(ctx, next) {
    const principal = requirePrincipal(ctx.state);
    const row = await findSimulationRun(services.pool, { accountId: principal.accountId, id: (ctx.params as Partial<Record<string, string>>).simulation_id ?? '' });
    const replay = toReplay(services, row);
    const deferred = replay instanceof AppError ? replay : undefined;

    const admission = await admitReplay(services, {
      accountId: principal.accountId,
      plan: principal.limits,
      requestId: ctx.state.requestId,
      wantsSlot: deferred === undefined,
    });
    for (const [name, value] of Object.entries(admission.headers)) {
      ctx.set(name, value);
    }
    const refusal = admission.refusal ?? deferred;
    if (refusal !== undefined) {
      if (refusal.status === 429) {
        recordLimitRejection(services.metrics, refusal.code);
      }
      throw refusal;
    }
    if (admission.replayId === undefined || replay instanceof AppError) {
      throw new Error('replay admission returned neither a refusal nor a slot');
    }

    const admitted: SimulationAdmission = {
      simulationId: admission.replayId,
      accountId: principal.accountId,
      plan: principal.limits,
      period: admission.period,
      numInteractions: replay.numInteractions,
      // No ledger row and no quota: whoever frees this admission frees its slot and nothing else.
      recorded: false,
      settled: false,
    };
    ctx.state.replay = replay;
    ctx.state.admission = admitted;
    // No ledger row and no quota: only the slot is held, and given back.
    await holdAdmission(ctx, services, admitted, () => false, next);
  };
