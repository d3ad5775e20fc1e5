import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { insertDownloadLink } from '../../../shared/db/queries/downloadLinks.ts';
import { findRun } from '../../runs/findRun.ts';
import type { OutputFormat } from '../../../shared/engine/index.ts';
import { interactionsPerRequestExceeded, simulationNotCompleted, simulationNotFound } from '../../../shared/errors/errors.ts';
import type { Principal } from '../../AppState.ts';
import type { Services } from '../../Services.ts';
import type { LinkCreated } from './schema.ts';

/** A link's token: 32 bytes of a CSPRNG as base64url, so 43 characters of [A-Za-z0-9_-]. */
export const LINK_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export const digestLinkToken = (token: string): Buffer => createHash('sha256').update(token).digest();

/**
 * Makes a download link for one of the caller's completed runs: an unguessable token, kept only as its
 * digest, tied to the credential that asked (its revocation ends the link) and to an expiry.
 */
export const createDownloadLink = async (
  services: Services,
  principal: Principal,
  input: { readonly simulationId: string; readonly format: OutputFormat; readonly expiresInS: number },
): Promise<LinkCreated> => {
  const run = await findRun(services, { accountId: principal.accountId, id: input.simulationId });
  if (run === null) {
    throw simulationNotFound();
  }
  if (run.status !== 'completed') {
    throw simulationNotCompleted(run.status);
  }
  // Every download through the link would be refused so (api/runs/admitReplayRun.ts): the link is
  // refused now rather than made to answer 403 later. A plan that shrinks after this ends it the same way.
  const maximum = principal.limits.max_interactions_per_request;
  if (run.num_interactions > maximum) {
    throw interactionsPerRequestExceeded(maximum, run.num_interactions);
  }
  const token = randomBytes(32).toString('base64url');
  const { expires_at } = await insertDownloadLink(services.pool, {
    id: randomUUID(),
    tokenDigest: digestLinkToken(token),
    accountId: principal.accountId,
    simulationId: run.id,
    apiKeyId: principal.via.kind === 'api_key' ? principal.via.apiKeyId : null,
    sessionId: principal.via.kind === 'session' ? principal.via.sessionId : null,
    format: input.format,
    expiresInS: input.expiresInS,
  });
  return { url: `${services.config.publicUrl}/v1/downloads/${token}`, format: input.format, expires_at };
};
