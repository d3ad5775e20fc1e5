import type { RedisClient } from '../shared/redis/createRedis.ts';
import type { SimulationReply } from '../shared/jobs/simulationReply.ts';
import { appendReply } from './appendReply.ts';

const FIRST_RETRY_MS = 50;
const LONGEST_RETRY_MS = 500;

/**
 * Appends a run's final reply, trying again until the run's deadline when Redis refuses it for a while (a
 * restart, a replica being promoted on a cluster: longer than the fail-fast connection's own retries
 * under load). Without it a finished run would be lost and its caller left to wait for the deadline. A
 * second copy of an entry whose first append did land is harmless: the API process reads a run's final
 * entry once and drops replies for runs nobody waits for.
 */
export const appendReplyBy = async (
  redis: RedisClient,
  replyTo: string,
  reply: SimulationReply,
  deadline: number,
  body?: Uint8Array,
): Promise<string> => {
  for (let delay = FIRST_RETRY_MS; ; delay = Math.min(delay * 2, LONGEST_RETRY_MS)) {
    try {
      return await appendReply(redis, replyTo, reply, body);
    } catch (error) {
      if (Date.now() + delay >= deadline) {
        throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
};
