import { Readable } from 'node:stream';
import type { ParameterizedContext } from 'koa';
import type { OutputFormat } from '../../../shared/engine/index.ts';
import type { AppState } from '../../AppState.ts';
import { requirePrincipal } from '../../auth/requirePrincipal.ts';
import { chooseEncoding } from '../../bulk/chooseEncoding.ts';
import { bodyTag } from '../../bulk/bodyTag.ts';
import { countBytes } from '../../bulk/countBytes.ts';
import { encodeBody, encodeWhole } from '../../bulk/encodeBody.ts';
import { rememberBodyLength } from '../../bulk/recallBodyLength.ts';
import { describeError } from '../../../shared/errors/describeError.ts';
import { setSimulationHeaders } from '../../bulk/setSimulationHeaders.ts';
import type { SimulationAdmission } from '../../simulations/SimulationAdmission.ts';
import type { Services } from '../../Services.ts';
import { runSimulation } from '../../simulations/runSimulation.ts';
import type { SimulationRequest } from '../../simulations/SimulationRequest.ts';
import { FORMAT_CONTENT_TYPES } from './negotiateFormat.ts';

/**
 * Runs a simulation and answers with it: the run-and-respond path of POST /v1/simulations and of its
 * idempotent replay (no admission; `request.replayOf` set), so both answer in the same formats with the
 * same headers. The format is the negotiated one unless given (an idempotent replay answers in the
 * recorded format). JSON, NDJSON and CSV are coded per Accept-Encoding (api/bulk/encodeBody.ts).
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
  const { identity, body } = await runSimulation(services, requirePrincipal(ctx.state), request, admission, { format, signal: clientGone.signal, connection: ctx.req.socket });
  setSimulationHeaders(ctx, identity);
  const coding = format === 'parquet' ? 'identity' : chooseEncoding(ctx.get('Accept-Encoding') || undefined);
  if (Buffer.isBuffer(body)) {
    // The worker's bytes, as they are: printed once in its thread, never parsed on the way here.
    ctx.body = coding === 'identity' ? body : await encodeWhole(body, coding);
  } else if (request.replayOf !== undefined) {
    // An idempotent replay's JSON states its own compute_ms (docs/api.md, idempotent retries), so its length
    // is not the recorded body's: only the run's first answer leaves its length behind.
    ctx.body = Readable.from(encodeBody(body as AsyncIterable<Buffer>, coding), { objectMode: false, highWaterMark: 64 * 1024 });
  } else {
    // A streamed run's length is learnt as it goes out, for the HEAD and ranges of its replays
    // (api/bulk/serveRecords.ts): they then never make the whole body again to measure it. A small run
    // is cheaper to measure again than a Redis write on every answer.
    const tag = bodyTag({ simulationId: identity.simulationId, serviceVersion: identity.serviceVersion, format, coding });
    const remember = (length: number): void => {
      rememberBodyLength(services, tag, length).catch((error: unknown) =>
        services.logger.warn({ simulation_id: identity.simulationId, error: describeError(error) }, 'could not remember a body length'),
      );
    };
    ctx.body = Readable.from(countBytes(encodeBody(body as AsyncIterable<Buffer>, coding), remember), { objectMode: false, highWaterMark: 64 * 1024 });
  }
  if (coding !== 'identity') {
    ctx.set('Content-Encoding', coding);
  }
  ctx.set('Content-Type', FORMAT_CONTENT_TYPES[format]);
};
