import type { ParameterizedContext } from 'koa';
import type { OutputFormat } from '../../../shared/engine/index.ts';
import type { AppState } from '../../AppState.ts';
import { requirePrincipal } from '../../auth/requirePrincipal.ts';
import type { SimulationAdmission } from '../../simulations/SimulationAdmission.ts';
import type { Services } from '../../Services.ts';
import { runSimulation } from '../../simulations/runSimulation.ts';
import type { SimulationRequest } from '../../simulations/SimulationRequest.ts';
import { FORMAT_CONTENT_TYPES } from './negotiateFormat.ts';

/**
 * Runs a simulation and answers with it: the one run-and-respond path of POST /v1/simulations, of its
 * idempotent replay (no admission) and of a history replay (GET /v1/simulations/{id}/records;
 * `request.replayOf` set for both replays), so all answer in the same formats with the same headers.
 * The format is the negotiated one unless given (an idempotent replay answers in the recorded format).
 */
export const respondWithSimulation = async (
  ctx: ParameterizedContext<AppState>,
  services: Services,
  request: SimulationRequest,
  admission: SimulationAdmission | undefined,
  format: OutputFormat = ctx.state.format ?? 'json',
): Promise<void> => {
  // A client that leaves before its body is whole stops the run (its thread aborted, its slot freed).
  const clientGone = new AbortController();
  ctx.res.once('close', () => {
    if (!ctx.res.writableFinished) {
      clientGone.abort();
    }
  });
  const { identity, body } = await runSimulation(services, requirePrincipal(ctx.state), request, admission, { format, signal: clientGone.signal });
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Simulation-Id', identity.simulationId);
  ctx.set('Simulation-Preset', identity.preset);
  ctx.set('Simulation-Profile', identity.profile);
  ctx.set('Simulation-Seed', String(identity.seed));
  ctx.set('Simulation-Engine-Version', identity.engineVersion);
  // The worker's bytes, as they are: printed once in its thread, never parsed on the way here.
  ctx.body = body;
  ctx.set('Content-Type', FORMAT_CONTENT_TYPES[format]);
};
