import { randomUUID } from 'node:crypto';
import type { AppError } from '../../shared/errors/AppError.ts';
import { keyChangeRateLimitExceeded } from '../../shared/errors/errors.ts';
import type { LimitDependencies } from './LimitDependencies.ts';
import { keyChangeWindowKey } from './limitKeys.ts';
import { KEY_CHANGE_WINDOW_US, KEY_CHANGES_PER_HOUR } from './limitPolicy.ts';


/**
 * Counts one attempt to create or roll a key in the account's sliding hour, or refuses it (429 with
 * `Retry-After`) without counting it. One script call decides, so simultaneous attempts on any number of
 * API processes never pass more than the limit. Returns the refusal, if any.
 */
export const admitKeyChange = async (deps: LimitDependencies, input: { accountId: string; requestId: string }): Promise<AppError | undefined> => {
  const answer = await deps.limitScripts.admitKeyChange(
    { window: keyChangeWindowKey(deps.redisPrefix, input.accountId) },
    { limit: KEY_CHANGES_PER_HOUR, windowUs: KEY_CHANGE_WINDOW_US, requestId: `${input.requestId}:${randomUUID()}` },
  );
  switch (answer.outcome) {
    case 'admitted':
      return undefined;
    case 'rateLimited':
      return keyChangeRateLimitExceeded(KEY_CHANGES_PER_HOUR, answer.value);
    default:
      throw new Error(`unexpected key change admission outcome ${answer.outcome}`);
  }
};
