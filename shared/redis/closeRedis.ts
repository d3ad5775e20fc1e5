import { raceTimeout, TIMED_OUT } from '../async/raceTimeout.ts';
import type { RedisClient } from './createRedis.ts';

/**
 * Closes a connection politely (QUIT, so replies in flight arrive) but never waits past `ms`: a QUIT sent
 * while the link is down, or to a Cluster caught reconnecting, can wait forever, and a shutdown must not.
 * Past the bound, or on an error, the sockets and reconnect timers are dropped at once.
 */
export const closeRedis = async (client: RedisClient, ms = 2_000): Promise<void> => {
  const quit = client.quit().then(
    () => undefined,
    () => TIMED_OUT,
  );
  if ((await raceTimeout(quit, ms)) === TIMED_OUT) client.disconnect();
};
