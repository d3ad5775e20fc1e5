import Router from '@koa/router';
import { findStream, listStreams } from '../../../shared/db/queries/streams.ts';
import { streamNotFound, validationFailed } from '../../../shared/errors/errors.ts';
import { EnvelopeStream } from '../../../shared/streams/EnvelopeStream.ts';
import { loadStreamInput } from '../../../shared/streams/loadStreamInput.ts';
import type { AppState } from '../../AppState.ts';
import { requirePrincipal } from '../../auth/requirePrincipal.ts';
import { countInRateWindow } from '../countInRateWindow.ts';
import { authenticate } from '../../middleware/authenticate.ts';
import { jsonBody } from '../../middleware/jsonBody.ts';
import { validateBody, validateQuery } from '../../middleware/validate.ts';
import type { Services } from '../../Services.ts';
import { cancelStream } from '../../streams/cancelStream.ts';
import { createStream } from '../../streams/createStream.ts';
import { presentStream } from '../../streams/presentStream.ts';
import { serveStreamEvents } from '../../streams/serveStreamEvents.ts';
import { decodeRunCursor, encodeRunCursor } from '../simulations/runCursor.ts';
import { createStreamSchema, listStreamsQuerySchema } from './schema.ts';

/** Events stay readable this long after a stream finished (docs/streams.md#server-sent-events). */
const READABLE_AFTER_FINISH_MS = 7 * 86_400_000;
const POSITION = /^(0|[1-9]\d{0,9})$/;

/** Live streams (docs/streams.md). */
export const streamRoutes = (services: Services): Router<AppState> => {
  const router = new Router<AppState>();

  router.post('/v1/streams', authenticate(services), countInRateWindow(services), jsonBody(), validateBody(createStreamSchema), async (ctx) => {
    const principal = requirePrincipal(ctx.state);
    const { row, secret } = await createStream(services, principal, ctx.state.input);
    ctx.status = 201;
    ctx.set('Location', `/v1/streams/${row.id}`);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = secret === null ? presentStream(row) : { ...presentStream(row), webhook_secret: secret };
  });

  router.get('/v1/streams', authenticate(services), validateQuery(listStreamsQuerySchema), async (ctx) => {
    const { accountId } = requirePrincipal(ctx.state);
    const query = ctx.state.input;
    const after = query.cursor === undefined ? undefined : decodeRunCursor(query.cursor);
    const rows = await listStreams(services.pool, { accountId, limit: query.limit + 1, ...(after === undefined ? {} : { after }) });
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      data: page.map(presentStream),
      next_cursor: rows.length > query.limit && last !== undefined ? encodeRunCursor({ createdAt: last.cursor_at, id: last.id }) : null,
    };
  });

  router.get('/v1/streams/:stream_id', authenticate(services), async (ctx) => {
    const { accountId } = requirePrincipal(ctx.state);
    const row = await findStream(services.pool, { accountId, id: ctx.params.stream_id ?? '' });
    if (row === null) throw streamNotFound();
    ctx.set('Cache-Control', 'no-store');
    ctx.body = presentStream(row);
  });

  router.delete('/v1/streams/:stream_id', authenticate(services), async (ctx) => {
    const { accountId } = requirePrincipal(ctx.state);
    const row = await cancelStream(services, accountId, ctx.params.stream_id ?? '');
    ctx.set('Cache-Control', 'no-store');
    ctx.body = presentStream(row);
  });

  router.get('/v1/streams/:stream_id/events', authenticate(services), async (ctx) => {
    const { accountId } = requirePrincipal(ctx.state);
    const row = await findStream(services.pool, { accountId, id: ctx.params.stream_id ?? '' });
    if (row === null) throw streamNotFound();
    if (row.finished_at !== null && Date.parse(row.finished_at) + READABLE_AFTER_FINISH_MS < Date.now()) throw streamNotFound();
    const given = ctx.get('Last-Event-ID') || (typeof ctx.query['last_event_id'] === 'string' ? ctx.query['last_event_id'] : '');
    if (given !== '' && !POSITION.test(given.trim())) {
      throw validationFailed([{ path: 'last_event_id', message: 'Expected a position: a non-negative integer.' }]);
    }
    // Made before the answer begins (a model stream's version is read from PostgreSQL and compiled), so a
    // failure there is still an error envelope rather than a cut event stream.
    const events = new EnvelopeStream(await loadStreamInput(services.pool, row));
    ctx.respond = false;
    await serveStreamEvents(services, ctx.res, row, events, given === '' ? 0 : Number(given.trim()));
  });

  return router;
};
