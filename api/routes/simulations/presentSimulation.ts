import { Readable } from 'node:stream';
import type { ParameterizedContext } from 'koa';
import type { OutputFormat } from '../../../shared/engine/index.ts';
import { describeError } from '../../../shared/errors/describeError.ts';
import type { RunSpecification } from '../../../shared/runs/runSpecification.ts';
import { bodyTag } from '../../bulk/bodyTag.ts';
import { chooseEncoding } from '../../bulk/chooseEncoding.ts';
import { countBytes } from '../../bulk/countBytes.ts';
import { encodeBody, encodeWhole } from '../../bulk/encodeBody.ts';
import { FORMAT_CONTENT_TYPES } from '../../bulk/formatContentTypes.ts';
import { rememberBodyLength } from '../../bulk/recallBodyLength.ts';
import { setSimulationHeaders } from '../../bulk/setSimulationHeaders.ts';
import type { Services } from '../../Services.ts';

/**
 * A run's answer to POST /v1/simulations, first or idempotent replay, so both answer in the same formats
 * with the same headers: the worker's bytes as they are (printed once in its thread, never parsed on the
 * way here), coded per Accept-Encoding but for Parquet (api/bulk/encodeBody.ts).
 */
export const presentSimulation = async (
  ctx: ParameterizedContext,
  services: Services,
  answer: { readonly spec: RunSpecification; readonly body: Buffer | Readable; readonly format: OutputFormat; readonly replayed: boolean },
): Promise<void> => {
  const { spec, body, format } = answer;
  setSimulationHeaders(ctx, spec);
  const coding = format === 'parquet' ? 'identity' : chooseEncoding(ctx.get('Accept-Encoding') || undefined);
  if (Buffer.isBuffer(body)) {
    ctx.body = coding === 'identity' ? body : await encodeWhole(body, coding);
  } else if (answer.replayed) {
    // An idempotent replay's JSON states its own compute_ms (docs/api.md, idempotent retries), so its length
    // is not the recorded body's: only the run's first answer leaves its length behind.
    ctx.body = Readable.from(encodeBody(body as AsyncIterable<Buffer>, coding), { objectMode: false, highWaterMark: 64 * 1024 });
  } else {
    // A streamed run's length is learnt as it goes out, for the HEAD and ranges of its replays
    // (api/bulk/serveRecords.ts): they then never make the whole body again to measure it. A small run
    // is cheaper to measure again than a Redis write on every answer.
    const tag = bodyTag({ simulationId: spec.simulationId, serviceVersion: spec.serviceVersion, format, coding });
    const remember = (length: number): void => {
      rememberBodyLength(services, tag, length).catch((error: unknown) =>
        services.logger.warn({ simulation_id: spec.simulationId, error: describeError(error) }, 'could not remember a body length'),
      );
    };
    ctx.body = Readable.from(countBytes(encodeBody(body as AsyncIterable<Buffer>, coding), remember), { objectMode: false, highWaterMark: 64 * 1024 });
  }
  if (coding !== 'identity') {
    ctx.set('Content-Encoding', coding);
  }
  ctx.set('Content-Type', FORMAT_CONTENT_TYPES[format]);
};
