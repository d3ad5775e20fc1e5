import { timingSafeEqual } from 'node:crypto';
import type { RouterMiddleware } from '@koa/router';
import { LoginError } from '../../auth/LoginError.ts';
import type { AppState } from '../../AppState.ts';
import { pendingLogin } from './preLoginSession.ts';
import { routeProvider } from './requireProvider.ts';

const sameString = (a: string, b: string): boolean => {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
};

/**
 * Checks the callback before grant exchanges anything. grant checks the state too, but skips the check
 * when its session lacks one and follows the provider stored in its session rather than the path's;
 * here a callback must match a login this browser started, for this provider, with this exact state.
 * Only then is the provider's `error` believed (denied consent), so a forged link cannot fake one.
 */
export const checkCallback: RouterMiddleware<AppState> = async (ctx, next) => {
  const pending = pendingLogin(ctx);
  const { state, error, code } = ctx.query;
  if (
    pending?.provider !== routeProvider(ctx.params) ||
    typeof pending.state !== 'string' ||
    typeof state !== 'string' ||
    !sameString(pending.state, state)
  ) {
    throw new LoginError('invalid_state', 'callback state does not match a pending login');
  }
  if (error !== undefined) {
    throw new LoginError(error === 'access_denied' ? 'access_denied' : 'provider_error', 'the provider refused the login');
  }
  if (typeof code !== 'string' || code === '') {
    throw new LoginError('provider_error', 'callback without a code');
  }
  await next();
};
