import { ReplyError } from 'ioredis';
import { MaxRetriesPerRequestError } from 'ioredis/built/errors/index.js';

/** Redis' own answers that say it cannot serve right now (a failover, a load from disk), not that we erred. */
const UNAVAILABLE_REPLY_CODES = new Set(['CLUSTERDOWN', 'TRYAGAIN', 'MASTERDOWN', 'LOADING']);

/**
 * What ioredis rejects a command with when its connection is closed, not yet usable or (on a cluster) has
 * no node left to try. ioredis gives these no class and no code, only these fixed texts (its own cluster
 * code tells them apart the same way), so they are listed here once, exactly, and nowhere else.
 */
const CONNECTION_STATE_MESSAGES = new Set([
  'Connection is closed.',
  "Stream isn't writeable and enableOfflineQueue options is false",
  "Cluster isn't ready and enableOfflineQueue options is false",
  'None of startup nodes is available',
  'Command aborted due to connection close',
  'Cluster is ended.',
]);
const REDIRECTIONS_EXHAUSTED = 'Too many Cluster redirections.';

/**
 * Whether an error of ioredis' own means Redis could not be reached, whatever the instant it surfaced in:
 * the command was in flight when the link broke, or sent in the moment after the socket died and before
 * ioredis noticed (its status still `ready`). Such an error is the client's 503, never a 500. Socket errors
 * (ECONNRESET, EPIPE) carry their code and are told apart by it with every backing service's (toAppError).
 */
export const isRedisUnavailableError = (error: unknown): boolean => {
  if (!(error instanceof Error)) {
    return false;
  }
  if (error instanceof MaxRetriesPerRequestError) {
    return true;
  }
  if (error instanceof ReplyError) {
    // A reply error's code is the first word of Redis' answer (as MOVED and ASK are to ioredis).
    return UNAVAILABLE_REPLY_CODES.has(error.message.split(' ', 1)[0] ?? '');
  }
  return CONNECTION_STATE_MESSAGES.has(error.message) || error.message.startsWith(REDIRECTIONS_EXHAUSTED);
};
