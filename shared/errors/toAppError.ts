import { BackendTerminatedError, ConnectionError, StatementTimeoutError } from 'slonik';
import { isRedisUnavailableError } from '../redis/isRedisUnavailableError.ts';
import { AppError } from './AppError.ts';
import { internalError, malformedRequest, methodNotAllowed, notFound, payloadTooLarge, serviceUnavailable, unsupportedMediaType } from './errors.ts';

const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EPIPE']);

/**
 * Maps anything thrown to what the client may see, by class and code, never by message text (but for the
 * ioredis errors that have neither: shared/redis/isRedisUnavailableError.ts). A backing service that cannot
 * be reached is the client's 503 to retry; anything else unknown is a generic 500.
 */
export const toAppError = (error: unknown, backingServiceDown: () => boolean): AppError => {
  if (error instanceof AppError) {
    return error;
  }
  if (error instanceof ConnectionError || error instanceof BackendTerminatedError || error instanceof StatementTimeoutError) {
    return serviceUnavailable();
  }
  const code = (error as { code?: unknown } | null)?.code;
  if ((typeof code === 'string' && UNREACHABLE_CODES.has(code)) || isRedisUnavailableError(error)) {
    return serviceUnavailable();
  }
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    // Errors raised by Koa itself or a library mounted on it (http-errors).
    switch (status) {
      case 404:
        return notFound();
      case 405:
        return methodNotAllowed([]);
      case 413:
        return payloadTooLarge();
      case 415:
        return unsupportedMediaType();
      default:
        return malformedRequest();
    }
  }
  if (backingServiceDown()) {
    return serviceUnavailable();
  }
  return internalError();
};
