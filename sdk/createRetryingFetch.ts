import { setTimeout as sleepFor } from 'node:timers/promises';
import { BssConnectionError } from './BssConnectionError.ts';

export interface RetryNotice {
  /** 1 for the first retry. */
  readonly retry: number;
  readonly maxRetries: number;
  readonly waitSeconds: number;
  readonly status: number;
  /** The envelope's `details.code` (`rate_limit_exceeded`, `concurrency_limit_exceeded`, `service_unavailable`). */
  readonly code: string | undefined;
  readonly requestId: string | undefined;
}

export interface RetryOptions {
  /** Retries after the first attempt; default 3. */
  readonly maxRetries?: number;
  /** A longer `Retry-After` is not waited for: the 429/503 goes to the caller. Default 60 s (the rate window). */
  readonly maxWaitSeconds?: number;
  /** Told before each wait, so a CLI can say why it pauses. */
  readonly onRetry?: (notice: RetryNotice) => void;
  readonly fetch?: (request: Request) => Promise<Response>;
}

const RETRIED_STATUSES = new Set([429, 503]);

/** `Retry-After` as seconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
const parseRetryAfter = (value: string | null, now = Date.now()): number | undefined => {
  if (value === null) {
    return undefined;
  }
  if (/^\d+$/.test(value.trim())) {
    return Number(value.trim());
  }
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
};

const readCode = async (response: Response): Promise<string | undefined> => {
  try {
    const body = (await response.json()) as { error?: { details?: { code?: unknown } } };
    const code = body.error?.details?.code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
};

/**
 * A fetch for openapi-fetch that waits out 429 and 503 answers for as long as `Retry-After` says, a few
 * times. A POST is retried only when it carries an `Idempotency-Key`: the service then answers a repeat
 * with the first outcome instead of running it twice (without one, a retry could double a run that did
 * start). GET and DELETE are safe to repeat as they are.
 */
export const createRetryingFetch = (options: RetryOptions = {}): ((request: Request) => Promise<Response>) => {
  const maxRetries = options.maxRetries ?? 3;
  const maxWaitSeconds = options.maxWaitSeconds ?? 60;
  const baseFetch = options.fetch ?? ((request: Request) => fetch(request));
  return async (request) => {
    const retryable = request.method !== 'POST' || request.headers.has('idempotency-key');
    for (let retry = 0; ; retry += 1) {
      let response: Response;
      try {
        // A body can be sent once: each attempt sends a copy, keeping the original for the next one.
        response = await baseFetch(retryable ? request.clone() : request);
      } catch (error) {
        if (request.signal.aborted) {
          throw error;
        }
        throw new BssConnectionError(request.url, error);
      }
      if (!retryable || retry >= maxRetries || !RETRIED_STATUSES.has(response.status)) {
        return response;
      }
      const waitSeconds = parseRetryAfter(response.headers.get('retry-after'));
      if (waitSeconds === undefined || waitSeconds > maxWaitSeconds) {
        return response;
      }
      const code = await readCode(response);
      options.onRetry?.({
        retry: retry + 1,
        maxRetries,
        waitSeconds,
        status: response.status,
        code,
        requestId: response.headers.get('x-request-id') ?? undefined,
      });
      await sleepFor(waitSeconds * 1000, undefined, { signal: request.signal });
    }
  };
};
