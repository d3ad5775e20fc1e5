import Router from '@koa/router';
import type { ParameterizedContext } from 'koa';
import type { OutputFormat } from '../../../shared/engine/index.ts';
import type { AppState } from '../../AppState.ts';
import { authenticateApiKeyCached } from '../../auth/authenticateApiKey.ts';
import { requirePrincipal } from '../../auth/requirePrincipal.ts';
import { answerIdempotently, type KeptAnswer } from '../../idempotency/idempotent.ts';
import { authenticate } from '../../middleware/authenticate.ts';
import { admitReplayRun } from '../../runs/admitReplayRun.ts';
import { admitRun, type RunAdmission } from '../../runs/admitRun.ts';
import type { RunRequest } from '../../runs/RunRequest.ts';
import type { AppError } from '../../../shared/errors/AppError.ts';
import type { Services } from '../../Services.ts';
import { holdWhileAnswering } from './holdWhileAnswering.ts';
import { negotiateFormat } from './negotiateFormat.ts';
import { parseSimulationRequest } from './parseSimulationRequest.ts';
import { presentRateLimit } from './presentRateLimit.ts';
import { presentSimulation } from './presentSimulation.ts';
import { keptRunOf } from './keptRunOf.ts';
import { keptRunSpecification } from './keptRunSpecification.ts';
import { watchClient } from './watchClient.ts';

/**
 * Runs what admission let through and answers with it: the RateLimit fields on every answer, the refusal
 * thrown (the error envelope), else the run's body, while the run holds its slot.
 */
const runAdmitted = async (services: Services, ctx: ParameterizedContext<AppState>, admission: RunAdmission, answer: { format: OutputFormat; replayed: boolean }): Promise<void> => {
  presentRateLimit(ctx, admission.rateLimit);
  if ('refusal' in admission) {
    throw admission.refusal;
  }
  const { run } = admission;
  await holdWhileAnswering(ctx, services.logger, run, async () => {
    const body = await run.execute({ format: answer.format, ...watchClient(ctx) });
    await presentSimulation(ctx, services, { spec: run.spec, body, ...answer });
  });
};

export const simulationRoutes = (services: Services): Router<AppState> => {
  const router = new Router<AppState>();

  /** A first answer: a new run admitted (its refusal, if any, answered after the rate limiter), run and presented; resolves with what an idempotent retry replays. */
  const answerNewRun = async (ctx: ParameterizedContext<AppState>, request: RunRequest | AppError, format: OutputFormat): Promise<unknown> => {
    const admission = await admitRun(services, {
      // The principal the Idempotency-Key check confirmed (reloaded if the account changed since it was cached).
      principal: requirePrincipal(ctx.state),
      request,
      requestId: ctx.state.requestId,
      reloadPrincipal: () => authenticateApiKeyCached(services, ctx.get('Authorization'), { reload: true }),
    });
    ctx.state.principal = admission.principal;
    await runAdmitted(services, ctx, admission, { format, replayed: false });
    return 'run' in admission ? keptRunOf(admission.run.spec, format) : undefined;
  };

  // An idempotent retry: the recorded run made again through the same run-and-present path, in the
  // recorded format, under the recorded Simulation-Id. Limited like a history replay (docs/fair-use.md):
  // a rate entry and a slot while it streams, the account's current per-request maximum, no monthly
  // quota and no ledger row.
  const answerAgain = async (ctx: ParameterizedContext<AppState>, kept: KeptAnswer): Promise<void> => {
    const principal = requirePrincipal(ctx.state);
    const { spec, format } = await keptRunSpecification(services.models, principal.accountId, kept);
    const admission = await admitReplayRun(services, { principal, requestId: ctx.state.requestId, replay: spec });
    await runAdmitted(services, ctx, admission, { format, replayed: true });
    ctx.status = kept.status;
  };

  // The contract (docs/api.md, order of checks): authenticate (401/403) → format (406, never counted) →
  // parse (reads the body and resolves it once) → Idempotency-Key (a replay counts against no limit) →
  // admit (rate limit, then parse's refusal 400/413/415/422/404, 409, the per-request maximum, monthly
  // quotas and the concurrency slot, in one Redis round trip) → run → present. Parse's refusal waits for
  // admit because the rate limiter counts every authenticated attempt before the body is judged.
  router.post('/v1/simulations', authenticate(services, { cached: true }), async function simulate(ctx) {
    const format = negotiateFormat(ctx);
    const request = await parseSimulationRequest(services, ctx, requirePrincipal(ctx.state).accountId);
    await answerIdempotently(services, ctx, {
      first: () => answerNewRun(ctx, request, format),
      replay: (kept) => answerAgain(ctx, kept),
    });
  });

  return router;
};
