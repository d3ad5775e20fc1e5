import type { Middleware } from 'koa';
import { authenticateApiKeyCached } from '../../auth/authenticateApiKey.ts';
import { requirePrincipal } from '../../auth/requirePrincipal.ts';
import { admitRun } from '../../runs/admitRun.ts';
import type { Run } from '../../runs/createRun.ts';
import type { Services } from '../../Services.ts';
import { holdWhileAnswering } from './holdWhileAnswering.ts';
import { presentRateLimit } from './presentRateLimit.ts';
import type { ValidatedState } from './validateSimulation.ts';

export type AdmittedState = ValidatedState & { admission: Run };

/** The admit stage of POST /v1/simulations (api/runs/admitRun.ts): the rest of the chain runs while the run holds its slot. */
export const admitSimulationRequest = (services: Services): Middleware<AdmittedState> =>
  async function admit(ctx, next) {
    const admission = await admitRun(services, {
      principal: requirePrincipal(ctx.state),
      request: ctx.state.bodyRefusal ?? ctx.state.input,
      requestId: ctx.state.requestId,
      reloadPrincipal: () => authenticateApiKeyCached(services, ctx.get('Authorization'), { reload: true }),
    });
    ctx.state.principal = admission.principal;
    presentRateLimit(ctx, admission.headers);
    if ('refusal' in admission) {
      throw admission.refusal;
    }
    ctx.state.admission = admission.run;
    await holdWhileAnswering(ctx, services.logger, admission.run, next);
  };
