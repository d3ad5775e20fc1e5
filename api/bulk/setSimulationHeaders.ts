import type { ParameterizedContext } from 'koa';
import type { ModelReference } from '../../shared/jobs/RunSpecification.ts';

/** The run's identity as every format's answer carries it (docs/formats.md). */
export const setSimulationHeaders = (
  ctx: ParameterizedContext,
  identity: {
    readonly simulationId: string;
    readonly preset: string;
    readonly model?: ModelReference | undefined;
    readonly profile: string;
    readonly seed: number;
    readonly engineVersion: string;
  },
): void => {
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Vary', 'Accept, Accept-Encoding');
  ctx.set('Simulation-Id', identity.simulationId);
  ctx.set('Simulation-Preset', identity.preset);
  // A model run names its version (docs/models.md#running-a-model-post-v1simulations-with-model); a preset run
  // sends no Simulation-Model.
  if (identity.model !== undefined) {
    ctx.set('Simulation-Model', `${identity.model.name}@${identity.model.version}`);
  }
  ctx.set('Simulation-Profile', identity.profile);
  ctx.set('Simulation-Seed', String(identity.seed));
  ctx.set('Simulation-Engine-Version', identity.engineVersion);
};
