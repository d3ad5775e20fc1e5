import { randomUUID } from 'node:crypto';
import { pipeline, Readable, Transform } from 'node:stream';
import type { Middleware, ParameterizedContext } from 'koa';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  findIdempotencyRecord,
  type IdempotencyRecord,
  releaseIdempotencyKey,
} from '../../shared/db/queries/idempotencyKeys.ts';
import { AppError } from '../../shared/errors/AppError.ts';
import { describeError } from '../../shared/errors/describeError.ts';
import { idempotencyKeyInUse, idempotencyKeyReused, invalidIdempotencyKey } from '../../shared/errors/errors.ts';
import type { AppState } from '../AppState.ts';
import { confirmPrincipal } from '../auth/confirmPrincipal.ts';
import { jsonBody } from '../middleware/jsonBody.ts';
import type { Services } from '../Services.ts';
import { requestFingerprint } from './requestFingerprint.ts';

/** 1–255 characters of visible ASCII (docs/api.md#safe-retries-idempotency-key). */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;
const RETENTION_MS = 24 * 60 * 60 * 1000;
// How long a first request may hold its key without answering before another may take it over: longer
// than any run can last, so a live holder is never overtaken, yet a crashed process frees the key.
const HOLD_MARGIN_MS = 60_000;
// A claim lost to a row that vanished in between (its first attempt failed) is simply tried again.
const CLAIM_ATTEMPTS = 3;

/** What was kept of a first answer: its status and the recorded value. */
export interface KeptAnswer {
  readonly status: number;
  readonly response: unknown;
}

/** A route's two ways to answer a request that names an Idempotency-Key. */
export interface IdempotentAnswer {
  /**
   * Answers for the first time, and resolves with what to keep of the answer to replay it later (small,
   * fixed in size, never a secret), or undefined to keep nothing. Kept only when the answer is 2xx.
   */
  readonly first: () => Promise<unknown>;
  /** Answers again from what was kept. */
  readonly replay: (kept: KeptAnswer) => Promise<void>;
}

/** The middleware form, for a route whose handler follows in its chain (creating an API key). */
export interface IdempotentRoute<State extends AppState> {
  /** What to keep of a 2xx answer to replay it later: small, fixed in size, never a secret. */
  readonly record: (ctx: ParameterizedContext<State>) => unknown;
  /** Answers again from what was kept (status and the recorded value). */
  readonly replay: (ctx: ParameterizedContext<State>, kept: KeptAnswer) => Promise<void>;
}

const readBody = jsonBody();
const noop = async (): Promise<void> => {};

/**
 * The Idempotency-Key check, between authentication (its scope is the account) and everything that
 * counts a new request: a replay is answered here, through the route's `replay`, which applies the limits
 * a replay has (for a simulation: a rate entry and a slot, no quota; a key creation creates nothing and
 * costs nothing). A request without the header passes
 * through at the cost of one header lookup. The truth is a PostgreSQL row whose primary key only one
 * request can insert, whichever API process it reaches.
 */
export const answerIdempotently = async <State extends AppState>(services: Services, ctx: ParameterizedContext<State>, answer: IdempotentAnswer): Promise<void> => {
  const key = ctx.req.headers['idempotency-key'];
  if (key === undefined) {
    await answer.first();
    return;
  }
  if (typeof key !== 'string' || !IDEMPOTENCY_KEY.test(key)) {
    throw invalidIdempotencyKey();
  }
  try {
    await readBody(ctx, noop);
  } catch (error) {
    if (!(error instanceof AppError)) {
      throw error;
    }
    // The request fails anyway, at its own place in the order of checks, and a failure keeps nothing.
    await answer.first();
    return;
  }
  const { accountId } = await confirmPrincipal(services, ctx);
  const fingerprint = requestFingerprint({ method: ctx.method, path: ctx.path, body: ctx.state.body, accept: ctx.get('Accept') });
  const claimToken = randomUUID();

  for (let attempt = 1; ; attempt += 1) {
    const now = services.now();
    const claimed = await claimIdempotencyKey(services.pool, {
      accountId,
      key,
      fingerprint,
      claimToken,
      now,
      lockedUntil: new Date(now.getTime() + services.config.simulationTimeoutMs + HOLD_MARGIN_MS),
      expiresAt: new Date(now.getTime() + RETENTION_MS),
    });
    if (claimed) {
      await answerFirst(services, ctx, answer, { accountId, key, claimToken });
      return;
    }
    const record = await findIdempotencyRecord(services.pool, { accountId, key });
    if (record !== null) {
      await answerAgain(ctx, answer, { fingerprint, record });
      return;
    }
    if (attempt === CLAIM_ATTEMPTS) {
      throw idempotencyKeyInUse();
    }
  }
};

/** The check as a step of a route's chain: the rest of the chain is the first answer. */
export const idempotent = <State extends AppState>(services: Services, route: IdempotentRoute<State>): Middleware<State> =>
  async function idempotent(ctx, next) {
    await answerIdempotently(services, ctx, {
      first: async () => {
        await next();
        return ctx.status >= 200 && ctx.status < 300 ? route.record(ctx) : undefined;
      },
      replay: (kept) => route.replay(ctx, kept),
    });
  };

const answerFirst = async <State extends AppState>(
  services: Services,
  ctx: ParameterizedContext<State>,
  answer: IdempotentAnswer,
  claim: { readonly accountId: string; readonly key: string; readonly claimToken: string },
): Promise<void> => {
  const release = (): Promise<void> =>
    releaseIdempotencyKey(services.pool, claim).catch((error: unknown) =>
      // The claim's hold ends on its own; until then a retry answers 409 and may try again.
      services.logger.warn({ error: describeError(error) }, 'could not release an idempotency key'),
    );
  let recorded: unknown;
  try {
    recorded = await answer.first();
  } catch (error) {
    await release();
    throw error;
  }
  const kept = ctx.status >= 200 && ctx.status < 300 ? recorded : undefined;
  if (kept === undefined) {
    await release();
    return;
  }
  const complete = async (): Promise<void> =>
    completeIdempotencyKey(services.pool, { ...claim, status: ctx.status, response: kept }).catch((error: unknown) => {
      services.logger.warn({ error: describeError(error) }, 'could not keep an idempotent response');
      return release();
    });
  const { body } = ctx;
  if (!(body instanceof Readable)) {
    // The whole body is in hand: the answer is decided and cannot fail half-way.
    await complete();
    return;
  }
  // A streamed answer is kept only once it has ended well: the record is written after the last bytes
  // and before the response's terminating chunk, so a client that read a whole body finds its key kept,
  // and a run that failed mid-stream (its body destroyed) or a client that left keeps nothing.
  const guarded = new Transform({
    transform: (chunk: Buffer, _encoding, callback) => callback(null, chunk),
    flush: (callback) => {
      complete().then(
        () => callback(),
        () => callback(),
      );
    },
  });
  pipeline(body, guarded, (error) => {
    if (error) {
      void release();
    }
  });
  ctx.body = guarded;
};

const answerAgain = async <State extends AppState>(
  ctx: ParameterizedContext<State>,
  answer: IdempotentAnswer,
  input: { readonly fingerprint: Buffer; readonly record: IdempotencyRecord },
): Promise<void> => {
  const { record } = input;
  if (!record.fingerprint.equals(input.fingerprint)) {
    throw idempotencyKeyReused();
  }
  if (record.status === 'running' || record.response_status === null) {
    throw idempotencyKeyInUse();
  }
  await answer.replay({ status: record.response_status, response: record.response });
  // After the replay's own checks: a replay refused by a limit (429, 403) is no replay of the first answer.
  ctx.set('Idempotent-Replayed', 'true');
};
