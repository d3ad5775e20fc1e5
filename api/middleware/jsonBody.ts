import type { Middleware } from 'koa';
import { invalidJson, payloadTooLarge, unsupportedMediaType } from '../../shared/errors/errors.ts';
import type { AppState } from '../AppState.ts';

export const BODY_LIMIT_BYTES = 16 * 1024;

/**
 * Reads a JSON body into ctx.state.body. It is a step of each route's chain rather than global, because
 * the order of checks puts authentication and the rate limiter before any parsing.
 */
export const jsonBody =
  (limit = BODY_LIMIT_BYTES): Middleware<AppState> =>
  async (ctx, next) => {
    const declaredLength = ctx.req.headers['content-length'];
    const chunked = ctx.req.headers['transfer-encoding'] !== undefined;
    if (!chunked && (declaredLength === undefined || declaredLength === '0')) {
      ctx.state.body = undefined;
      await next();
      return;
    }
    if (ctx.is('application/json') === false) {
      throw unsupportedMediaType();
    }
    if (declaredLength !== undefined && Number(declaredLength) > limit) {
      // Closing stops us reading (and the client sending) a body we are going to refuse anyway.
      ctx.set('Connection', 'close');
      throw payloadTooLarge(limit);
    }
    const text = await readLimited(ctx.req, limit, () => ctx.set('Connection', 'close'));
    if (text.trim() === '') {
      ctx.state.body = undefined;
    } else {
      try {
        ctx.state.body = JSON.parse(text) as unknown;
      } catch {
        throw invalidJson();
      }
    }
    await next();
  };

const readLimited = async (stream: NodeJS.ReadableStream, limit: number, onOverflow: () => void): Promise<string> => {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += buffer.length;
    if (size > limit) {
      onOverflow();
      throw payloadTooLarge(limit);
    }
    chunks.push(buffer);
  }
  const bytes = Buffer.concat(chunks, size);
  // Invalid UTF-8 is as unparseable as invalid JSON.
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw invalidJson();
  }
};
