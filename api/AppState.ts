import type { ParameterizedContext } from 'koa';
import type { PlanRow } from '../shared/db/queries/plans.ts';
import type { OutputFormat } from '../shared/engine/index.ts';

/** What authentication proves about a request: which account, and through which credential. */
export interface Principal {
  readonly accountId: string;
  readonly plan: string;
  /** The plan's limits, read in the same query as the credential: a plan change applies on the next request. */
  readonly limits: PlanRow;
  readonly via: { readonly kind: 'api_key'; readonly apiKeyId: string } | { readonly kind: 'session'; readonly sessionId: string };
  /**
   * Set when the principal came from this process's cache (api/auth/createPrincipalCache.ts): the account's
   * credential version it was loaded under, which the admission script confirms before anything is taken.
   */
  readonly authVersion?: string;
}

export interface AppState {
  requestId: string;
  /** Set by the authenticate middleware on protected routes. */
  principal?: Principal;
  /** The parsed JSON request body, set by the jsonBody middleware; undefined when none was sent. */
  body?: unknown;
  /** The response format a download link names (api/routes/downloads/resolveDownloadLink.ts). */
  format?: OutputFormat;
  /** Route name for metrics and logs (the router's path template, never the raw path). */
  route?: string;
}

export type AppContext = ParameterizedContext<AppState>;
