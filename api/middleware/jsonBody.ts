import type { IncomingMessage } from 'node:http';
import { pipeline, type Readable } from 'node:stream';
import { createGunzip, createInflate } from 'node:zlib';
import type { Middleware, ParameterizedContext } from 'koa';
import { AppError } from '../../shared/errors/AppError.ts';
import { BODY_LIMIT_BYTES, ClientAbortedError, invalidJson, jsonTooDeep, payloadTooLarge, unsupportedCharset, unsupportedContentEncoding, unsupportedMediaType } from '../../shared/errors/errors.ts';
import type { AppState } from '../AppState.ts';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from './exceedsJsonDepth.ts';

// A body can be read once; a second step that needs it (the Idempotency-Key check reads it before the
// rate limiter, the route's own step after) gets the first reading's outcome, error included.
const readings = new WeakMap<object, { readonly body: unknown } | { readonly error: unknown }>();

/**
 * Reads a JSON body into ctx.state.body. It is a step of each route's chain rather than global, because
 * the order of checks puts authentication and the rate limiter before any parsing.
 */
export const jsonBody = (options: { readonly limitBytes?: number } = {}): Middleware<AppState> => async (ctx, next) => {
  const earlier = readings.get(ctx.req);
  if (earlier !== undefined) {
    if ('error' in earlier) {
      throw earlier.error;
    }
    ctx.state.body = earlier.body;
    await next();
    return;
  }
  try {
    ctx.state.body = await readJsonBody(ctx, options.limitBytes ?? BODY_LIMIT_BYTES);
  } catch (error) {
    readings.set(ctx.req, { error });
    throw error;
  }
  readings.set(ctx.req, { body: ctx.state.body });
  await next();
};

const readJsonBody = async (ctx: ParameterizedContext<AppState>, limitBytes: number): Promise<unknown> => {
  const declaredLength = ctx.req.headers['content-length'];
  const chunked = ctx.req.headers['transfer-encoding'] !== undefined;
  const declaresJson = ctx.request.type === 'application/json';
  if (!chunked && (declaredLength === undefined || declaredLength === '0') && !declaresJson) {
    // No body at all: the endpoint's schema decides whether it needed one.
    return undefined;
  }
  if (ctx.is('application/json') === false) {
    throw unsupportedMediaType();
  }
  // JSON is UTF-8 on the wire (RFC 8259 §8.1): a body declared in another charset is refused, not
  // misread as UTF-8.
  if (!UTF8_CHARSETS.has(ctx.request.charset.toLowerCase())) {
    throw unsupportedCharset();
  }
  const decode = decoderFor(ctx.req.headers['content-encoding']);
  if (declaredLength !== undefined && Number(declaredLength) > limitBytes) {
    // Closing stops us reading (and the client sending) a body we are going to refuse anyway.
    ctx.set('Connection', 'close');
    throw payloadTooLarge(limitBytes);
  }
  const text = await readLimited(ctx.req, decode, limitBytes, () => ctx.set('Connection', 'close'));
  // A JSON document is never empty: "Content-Type: application/json" and no text is a client's bug.
  if (text.trim() === '') {
    throw invalidJson();
  }
  // Decided before parsing: a body nested past the limit is refused like unparseable JSON.
  if (exceedsJsonDepth(text)) {
    throw jsonTooDeep(MAX_JSON_DEPTH);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw invalidJson();
  }
};

/** No charset parameter means UTF-8 for application/json. */
const UTF8_CHARSETS: ReadonlySet<string> = new Set(['', 'utf-8', 'utf8']);

type Decoder = (() => NodeJS.ReadWriteStream) | undefined;

/** gzip and deflate, as HTTP names them (RFC 9110 §8.4.1); anything else is refused, not ignored. */
const decoderFor = (contentEncoding: string | undefined): Decoder => {
  const codings = (contentEncoding ?? '')
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  if (codings.length === 0) {
    return undefined;
  }
  if (codings.length > 1) {
    throw unsupportedContentEncoding();
  }
  switch (codings[0]) {
    case 'gzip':
    case 'x-gzip':
      return createGunzip;
    case 'deflate':
      return createInflate;
    default:
      throw unsupportedContentEncoding();
  }
};

/**
 * The limit counts inflated bytes and reading stops as soon as it is passed, so a small compressed body
 * that inflates to gigabytes (a zip bomb) costs at most the limit in memory.
 */
const readLimited = async (request: IncomingMessage, decode: Decoder, limitBytes: number, onOverflow: () => void): Promise<string> => {
  const source: Readable = decode === undefined ? request : (pipeline(request, decode(), () => {}) as unknown as Readable);
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of source) {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
      size += buffer.length;
      if (size > limitBytes) {
        onOverflow();
        throw payloadTooLarge(limitBytes);
      }
      chunks.push(buffer);
    }
  } catch (error) {
    if (error instanceof AppError) {
      throw error;
    }
    if (request.readableAborted || request.socket.destroyed) {
      throw new ClientAbortedError();
    }
    if (decode !== undefined) {
      // Bytes that do not inflate are as unparseable as invalid JSON.
      throw invalidJson();
    }
    throw error;
  }
  const bytes = Buffer.concat(chunks, size);
  // Invalid UTF-8 is as unparseable as invalid JSON.
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw invalidJson();
  }
};
