import type { Redis } from 'ioredis';
import { RESULT_TTL_MS, simulationResultKey } from '../shared/jobs/resultKeys.ts';
import type { SimulationJobData } from '../shared/jobs/simulationJob.ts';
import type { SimulationReply } from '../shared/jobs/simulationReply.ts';

// Store, notify, and drop the bytes at once when no process listens any more (its API process is gone),
// all in one atomic round trip: the waiter's GETDEL can only arrive after the SET.
const DELIVER_RESULT_SCRIPT = `
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
local receivers = redis.call('PUBLISH', ARGV[3], ARGV[4])
if receivers == 0 then
  redis.call('DEL', KEYS[1])
end
return receivers
`;

interface DeliveringRedis extends Redis {
  bssDeliverSimulationResult(key: string, body: Buffer, ttlMs: number, channel: string, notice: string): Promise<number>;
}

const withDeliverCommand = (redis: Redis): DeliveringRedis => {
  if (!('bssDeliverSimulationResult' in redis)) {
    redis.defineCommand('bssDeliverSimulationResult', { numberOfKeys: 1, lua: DELIVER_RESULT_SCRIPT });
  }
  return redis as DeliveringRedis;
};

/** Hands a finished run to the API process waiting for it: the body under a short-lived key, a notice on its channel. */
export const deliverResult = async (
  redis: Redis,
  prefix: string,
  job: SimulationJobData,
  body: Uint8Array,
  reply: SimulationReply,
): Promise<number> =>
  withDeliverCommand(redis).bssDeliverSimulationResult(
    simulationResultKey(prefix, job.simulationId),
    // A view over the transferred buffer, not a copy.
    Buffer.from(body.buffer, body.byteOffset, body.byteLength),
    RESULT_TTL_MS,
    job.replyTo,
    JSON.stringify(reply),
  );

/** Tells the waiting API process that the run failed, so it answers now rather than at the deadline. */
export const deliverFailure = async (redis: Redis, job: SimulationJobData, reply: SimulationReply): Promise<number> =>
  redis.publish(job.replyTo, JSON.stringify(reply));
