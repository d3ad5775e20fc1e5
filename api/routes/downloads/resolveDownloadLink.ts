import type { Middleware } from 'koa';
import { findDownloadLink } from '../../../shared/db/queries/downloadLinks.ts';
import { linkExpired, linkNotFound } from '../../../shared/errors/errors.ts';
import type { AppState } from '../../AppState.ts';
import type { Services } from '../../Services.ts';
import { digestLinkToken, LINK_TOKEN_PATTERN } from './createDownloadLink.ts';

/** The run a download link names, for the replay admission that follows. */
export type DownloadState = AppState & { linkSimulationId?: string };

/**
 * Authenticates a download by its link instead of a credential: a forged or unknown token → 404
 * `link_not_found`; a link past its expiry, or whose key was revoked, or whose account was deactivated →
 * 410 `link_expired` (read from PostgreSQL on every download, so the end is exact). The request then acts
 * as the link's owner: its rate window and concurrency, its plan's limits, the link's format.
 */
export const resolveDownloadLink = (services: Services): Middleware<DownloadState> =>
  async function resolveDownloadLink(ctx, next) {
    const token = (ctx.params as Partial<Record<string, string>>).token ?? '';
    // Anything not shaped like a token is refused without a database round trip.
    const link = LINK_TOKEN_PATTERN.test(token) ? await findDownloadLink(services.pool, digestLinkToken(token)) : null;
    if (link === null) {
      throw linkNotFound();
    }
    if (link.ended) {
      throw linkExpired();
    }
    ctx.state.principal = {
      accountId: link.account_id,
      plan: link.plan.name,
      limits: link.plan,
      via: link.api_key_id === null ? { kind: 'session', sessionId: link.session_id ?? '' } : { kind: 'api_key', apiKeyId: link.api_key_id },
    };
    ctx.state.format = link.format;
    ctx.state.linkSimulationId = link.simulation_id;
    await next();
  };
