import type { ParameterizedContext } from 'koa';
import type { RunRecord } from '../../shared/runs/runSpecification.ts';

/** The run's identity as every format's answer carries it (docs/formats.md). */
export const setSimulationHeaders = (ctx: ParameterizedContext, run: RunRecord): void => {
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Vary', 'Accept, Accept-Encoding');
  ctx.set('Simulation-Id', run.simulationId);
  ctx.set('Simulation-Preset', run.preset);
  // A model run names its version (docs/models.md#running-a-model-post-v1simulations-with-model); a preset run
  // sends no Simulation-Model.
  if (run.model !== undefined) {
    ctx.set('Simulation-Model', `${run.model.name}@${run.model.version}`);
  }
  ctx.set('Simulation-Profile', run.profile);
  ctx.set('Simulation-Seed', String(run.seed));
  ctx.set('Simulation-Engine-Version', run.serviceVersion);
};
