import Router from '@koa/router';
import type { AppState } from '../../AppState.ts';
import { requirePrincipal } from '../../auth/requirePrincipal.ts';
import { authenticate } from '../../middleware/authenticate.ts';
import { jsonBody } from '../../middleware/jsonBody.ts';
import { validateBody } from '../../middleware/validate.ts';
import type { Services } from '../../Services.ts';
import { serveRecordedRun } from '../simulations/serveRecordedRun.ts';
import { createDownloadLink } from './createDownloadLink.ts';
import { type DownloadState, resolveDownloadLink } from './resolveDownloadLink.ts';
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
  router.get<DownloadState>('/v1/downloads/:token', resolveDownloadLink(services), async function download(ctx) {
    const format = ctx.state.format ?? 'json';
    await serveRecordedRun(ctx, services, {
      principal: requirePrincipal(ctx.state),
      simulationId: ctx.state.linkSimulationId ?? '',
      format,
      beforeServing: (run) => {
        const extensions = { json: 'json', ndjson: 'ndjson', csv: 'csv', parquet: 'parquet' } as const;
        ctx.set('Content-Disposition', `attachment; filename="${run.spec.simulationId}.${extensions[format]}"`);
      },
    });
  });

  return router;
};
