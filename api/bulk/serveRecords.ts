import { Readable } from 'node:stream';
import type { ParameterizedContext } from 'koa';
import type { OutputFormat } from '../../shared/engine/index.ts';
import { describeError } from '../../shared/errors/describeError.ts';
import { AppError } from '../../shared/errors/AppError.ts';
import { rangeNotSatisfiable } from '../../shared/errors/errors.ts';
import type { Run } from '../runs/createRun.ts';
import { remakeRun } from '../runs/remakeRun.ts';
import type { BulkDependencies } from './BulkDependencies.ts';
import { bodyTag } from './bodyTag.ts';
import { chooseEncoding, type ContentCoding } from './chooseEncoding.ts';
import { countBytes } from './countBytes.ts';
import { type Chunks, encodeBody } from './encodeBody.ts';
import { FORMAT_CONTENT_TYPES } from './formatContentTypes.ts';
import { parseRange, resolveRange } from './parseRange.ts';
import { pinComputeMs } from './pinComputeMs.ts';
import { recallBodyLength, rememberBodyLength } from './recallBodyLength.ts';
import { setSimulationHeaders } from './setSimulationHeaders.ts';
import { sliceBytes } from './sliceBytes.ts';

/** A recorded run to serve again: its admitted replay, what the ledger measured, and the format to answer in. */
export interface RecordedRun {
  readonly run: Run;
  /** The ledger's compute_ms, printed in a replayed JSON body in place of the replay's own. */
  readonly computeMs: number | null;
  readonly format: OutputFormat;
}

/** Bytes of the body a response holds back at most: a Readable of bytes, not of chunks. */
const RESPONSE_BUFFER_BYTES = 64 * 1024;

/**
 * A completed run's records again (GET /v1/simulations/{id}/records, GET and HEAD /v1/downloads/{token}),
 * resumable (docs/bulk-data.md#resumable-downloads): one body per run, format and coding, named by a strong
 * ETag, served whole (200) or as one byte range (206, `Range`, guarded by `If-Range`), coded per
 * Accept-Encoding.
 *
 * The engine has no random access, so a range is cut here from the whole body as it is made: the bytes
 * before it are made and dropped, and the run is stopped once its last byte is out. The total length in
 * `Content-Range`, in a HEAD and in 416 is remembered once some answer made the whole body (the run's
 * first answer included); when it is not known yet, the body is made once to measure it (within the same
 * slot, one run for every request of the process that waits on it) before answering.
 */
export const serveRecords = async (ctx: ParameterizedContext, services: BulkDependencies, recorded: RecordedRun): Promise<void> => {
  const { run, format } = recorded;
  const { spec } = run;
  const coding: ContentCoding = format === 'parquet' ? 'identity' : chooseEncoding(ctx.get('Accept-Encoding') || undefined);
  const tag = bodyTag({ simulationId: spec.simulationId, serviceVersion: spec.serviceVersion, format, coding });
  // If-Range with another validator (a changed body, or a date: these bodies have none) asks for the whole.
  const ifRange = ctx.get('If-Range');
  const range = ifRange === '' || ifRange === tag ? parseRange(ctx.get('Range') || undefined) : undefined;
  const head = ctx.method === 'HEAD';

  // A client that leaves stops the run; so does a range whose last byte is out.
  const stop = new AbortController();
  ctx.res.once('close', () => {
    if (!ctx.res.writableFinished) {
      stop.abort();
    }
  });
  // Coded and with the recorded compute_ms: the same bytes whichever run made them.
  const coded = (body: Buffer | Readable): Chunks => {
    const raw: Chunks = Buffer.isBuffer(body) ? [body] : (body as AsyncIterable<Buffer>);
    return encodeBody(format === 'json' && recorded.computeMs !== null ? pinComputeMs(raw, recorded.computeMs) : raw, coding);
  };
  const remember = (total: number): void => {
    rememberBodyLength(services, tag, total).catch((error: unknown) =>
      services.logger.warn({ simulation_id: spec.simulationId, error: describeError(error) }, 'could not remember a body length'),
    );
  };

  let total = await recallBodyLength(services, tag);
  if (total === undefined && (head || range !== undefined)) {
    // Within this request's slot (its admission is freed after the answer's own run, below), and shared
    // with every request of this process that waits on the same length: one run, whoever asked first. It
    // is nobody's stream, so no client leaving stops it.
    const measured = services.lengthMeasurements.measure(tag, async () => {
      // A measurement that ended between this request's look and now has left the length behind.
      const known = await recallBodyLength(services, tag);
      if (known !== undefined) {
        return known;
      }
      let length = 0;
      for await (const chunk of coded(await remakeRun(services, spec, { format }))) {
        length += chunk.length;
      }
      // Kept before the measurement ends, so a request that comes after it finds the length.
      await rememberBodyLength(services, tag, length).catch((error: unknown) =>
        services.logger.warn({ simulation_id: spec.simulationId, error: describeError(error) }, 'could not remember a body length'),
      );
      return length;
    });
    try {
      total = await measured;
    } catch (error) {
      // A HEAD is a question about the body, never worth a 5xx: without its length it answers the rest,
      // as a GET of an unknown length would (chunked, no Content-Length).
      if (!head || !(error instanceof AppError) || error.status < 500) {
        throw error;
      }
      services.logger.warn({ simulation_id: spec.simulationId, error: describeError(error) }, 'could not measure a body length for HEAD');
    }
  }

  const slice = range === undefined || total === undefined ? undefined : resolveRange(range, total);
  if (range !== undefined && total !== undefined && slice === undefined) {
    throw rangeNotSatisfiable(total);
  }
  const represent = (): void => {
    setSimulationHeaders(ctx, spec);
    ctx.set('Content-Type', FORMAT_CONTENT_TYPES[format]);
    ctx.set('Accept-Ranges', 'bytes');
    ctx.set('ETag', tag);
    if (coding !== 'identity') {
      ctx.set('Content-Encoding', coding);
    }
  };

  if (head) {
    if (total === undefined) {
      // No body and no length: Koa then sends neither (a null body drops the type: set after it).
      ctx.body = null;
      ctx.status = 200;
      represent();
      return;
    }
    represent();
    ctx.status = slice === undefined ? 200 : 206;
    ctx.body = Buffer.alloc(0);
    if (slice !== undefined) {
      ctx.set('Content-Range', `bytes ${slice.first}-${slice.last}/${String(total)}`);
    }
    ctx.length = slice === undefined ? total : slice.last - slice.first + 1;
    return;
  }

  const body = coded(await run.execute({ format, signal: stop.signal, connection: ctx.req.socket }));
  represent();
  if (slice !== undefined) {
    ctx.status = 206;
    ctx.set('Content-Range', `bytes ${slice.first}-${slice.last}/${String(total)}`);
    ctx.body = Readable.from(
      sliceBytes(body, slice.first, slice.last, () => stop.abort()),
      { objectMode: false, highWaterMark: RESPONSE_BUFFER_BYTES },
    );
    ctx.length = slice.last - slice.first + 1;
    return;
  }
  ctx.status = 200;
  ctx.body = Readable.from(countBytes(body, remember), { objectMode: false, highWaterMark: RESPONSE_BUFFER_BYTES });
  if (total !== undefined) {
    ctx.length = total;
  }
};
