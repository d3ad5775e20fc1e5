import Router from '@koa/router';
import type { AppState } from '../../AppState.ts';
import { requirePrincipal } from '../../auth/requirePrincipal.ts';
import { serveRecords } from '../../bulk/serveRecords.ts';
import { authenticate } from '../../middleware/authenticate.ts';
import { jsonBody } from '../../middleware/jsonBody.ts';
import { validateBody } from '../../middleware/validate.ts';
import type { Services } from '../../Services.ts';
import { admitReplayRequest } from '../../simulations/admitReplayRequest.ts';
import { createDownloadLink } from './createDownloadLink.ts';
import { resolveDownloadLink } from './resolveDownloadLink.ts';
import { createLinkBodySchema, type LinkCreated } from './schema.ts';

/** Download links (docs/bulk-data.md#download-links): made by a run's owner, used by anyone who holds one. */
export const downloadRoutes = (services: Services): Router<AppState> => {
  const router = new Router<AppState>();

  router.post('/v1/simulations/:simulation_id/links', authenticate(services), jsonBody(), validateBody(createLinkBodySchema), async (ctx) => {
    const input = ctx.state.input;
    const body: LinkCreated = await createDownloadLink(services, requirePrincipal(ctx.state), {
      simulationId: ctx.params.simulation_id ?? '',
      format: input.format,
      expiresInS: input.expires_in,
    });
    ctx.set('Cache-Control', 'no-store');
    ctx.status = 201;
    ctx.body = body;
  });

  // GET and HEAD, no credentials: the link (404, 410) → the owner's replay admission (rate window, then
  // the run: 409, 410, then a slot) → the records, resumable and coded like GET …/records.
  router.get(
    '/v1/downloads/:token',
    resolveDownloadLink(services),
    admitReplayRequest(services, (ctx) => ctx.state.linkSimulationId ?? ''),
    async function download(ctx) {
      const extensions = { json: 'json', ndjson: 'ndjson', csv: 'csv', parquet: 'parquet' } as const;
      ctx.set('Content-Disposition', `attachment; filename="${ctx.state.replay.replayOf?.simulationId ?? 'records'}.${extensions[ctx.state.format ?? 'json']}"`);
      await serveRecords(ctx, services, { replay: ctx.state.replay, admission: ctx.state.admission, computeMs: ctx.state.recordedComputeMs });
    },
  );

  return router;
};
