import Router from '@koa/router';
import { resolvePreset } from '../../../shared/engine/index.ts';
import { simulationNotFound } from '../../../shared/errors/errors.ts';
import type { AppState } from '../../AppState.ts';
import { requirePrincipal } from '../../auth/requirePrincipal.ts';
import { findRun } from '../../runs/findRun.ts';
import { listRuns } from '../../runs/listRuns.ts';
import { authenticate } from '../../middleware/authenticate.ts';
import { validateQuery } from '../../middleware/validate.ts';
import type { Services } from '../../Services.ts';
import { listSimulationsQuerySchema, type Run, type RunList } from './historySchema.ts';
import { presentRun } from './presentRun.ts';
import { negotiateFormat } from './negotiateFormat.ts';
import { decodeRunCursor, encodeRunCursor } from './runCursor.ts';
import { serveRecordedRun } from './serveRecordedRun.ts';

/** The account's runs (docs/api.md#run-history-and-replay): listed, one by one, and their records again. */
export const historyRoutes = (services: Services): Router<AppState> => {
  const router = new Router<AppState>();

  router.get('/v1/simulations', authenticate(services), validateQuery(listSimulationsQuerySchema), async (ctx) => {
    const { accountId } = requirePrincipal(ctx.state);
    const query = ctx.state.input;
    const after = query.cursor === undefined ? undefined : decodeRunCursor(query.cursor);
    // One row more than the page says whether another page follows, without a count.
    const rows = await listRuns(services, {
      accountId,
      limit: query.limit + 1,
      ...(after === undefined ? {} : { after }),
      ...(query.preset === undefined ? {} : { preset: resolvePreset(query.preset)?.name ?? query.preset }),
      ...(query.status === undefined ? {} : { status: query.status }),
    });
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    const body: RunList = {
      data: page.map(presentRun),
      next_cursor: rows.length > query.limit && last !== undefined ? encodeRunCursor({ createdAt: last.cursor_at, id: last.id }) : null,
    };
    ctx.set('Cache-Control', 'no-store');
    ctx.body = body;
  });

  router.get('/v1/simulations/:simulation_id', authenticate(services), async (ctx) => {
    const { accountId } = requirePrincipal(ctx.state);
    // Unknown, malformed and another account's ids take the same query and give the same 404.
    const row = await findRun(services, { accountId, id: ctx.params.simulation_id ?? '' });
    if (row === null) {
      throw simulationNotFound();
    }
    const body: Run = presentRun(row);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = body;
  });

  // authenticate → format (406) → the run looked up → admit (rate limit, then the run's refusal: 404, 409,
  // 410, then a slot) → run → present. The run's refusal is answered after the rate limiter counted the
  // request, so probing ids costs rate like any attempt. GET and HEAD; resumable (Range, If-Range, ETag)
  // and coded per Accept-Encoding (api/bulk/serveRecords.ts).
  router.get('/v1/simulations/:simulation_id/records', authenticate(services), async function records(ctx) {
    const format = negotiateFormat(ctx);
    await serveRecordedRun(ctx, services, { principal: requirePrincipal(ctx.state), simulationId: ctx.params.simulation_id ?? '', format });
  });

  return router;
};
