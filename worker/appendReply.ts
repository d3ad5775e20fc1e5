import type { RedisClient } from '../shared/redis/createRedis.ts';
import { REPLY_TTL_MS } from '../shared/jobs/replyKeys.ts';
import type { SimulationReply } from '../shared/jobs/simulationReply.ts';

// Append and keep the stream alive for a while, in one round trip. The TTL bounds what a stream whose API
// process died keeps in Redis; a live process deletes every entry as soon as it has read it.
const APPEND_REPLY_SCRIPT = `
local id = redis.call('XADD', KEYS[1], '*', 'm', ARGV[1], 'b', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return id
`;

type ReplyingRedis = RedisClient & {
  bssAppendSimulationReply(stream: string, notice: string, body: Buffer, ttlMs: number): Promise<string>;
};

const withAppendCommand = (redis: RedisClient): ReplyingRedis => {
  if (!('bssAppendSimulationReply' in redis)) {
    redis.defineCommand('bssAppendSimulationReply', { numberOfKeys: 1, lua: APPEND_REPLY_SCRIPT });
  }
  return redis as ReplyingRedis;
};

const EMPTY = Buffer.alloc(0);

/**
 * Appends one entry to the reply stream of the API process waiting for the run: a chunk, the final entry
 * (with the last bytes, the whole body of a small run) or a failure.
 */
export const appendReply = async (redis: RedisClient, replyTo: string, reply: SimulationReply, body?: Uint8Array): Promise<string> =>
  withAppendCommand(redis).bssAppendSimulationReply(
    replyTo,
    JSON.stringify(reply),
    // A view over the transferred buffer, not a copy.
    body === undefined ? EMPTY : Buffer.from(body.buffer, body.byteOffset, body.byteLength),
    REPLY_TTL_MS,
  );
