import type { AppContext } from '../AppState.ts';

/**
 * Whether a request comes from the service's own origin: `Origin` when sent, else the origin of `Referer`.
 * A request carrying neither is refused too: every browser sends Origin on a cross-site POST, so only
 * something stripping headers arrives with neither.
 */
export const isSameOrigin = (ctx: AppContext, publicOrigin: string): boolean => {
  const origin = ctx.get('Origin');
  if (origin !== '') {
    return origin === publicOrigin;
  }
  const referer = ctx.get('Referer');
  if (referer === '') {
    return false;
  }
  try {
    return new URL(referer).origin === publicOrigin;
  } catch {
    return false;
  }
};
