import { randomUUID } from 'node:crypto';
import { describeError } from '../shared/errors/describeError.ts';
import { controlChannel } from '../shared/jobs/replyKeys.ts';
import type { Logger } from '../shared/logger.ts';
import type { RedisClient } from '../shared/redis/createRedis.ts';

interface RunListener {
  readonly onAck: (acked: number) => void;
  readonly onAbort: () => void;
}

export interface RunControl {
  /** This worker process's control channel, named in every chunk it appends. */
  readonly channel: string;
  /** Listens for one run's acknowledgements and abort; call the returned function when the run ends. */
  readonly watch: (simulationId: string, listener: RunListener) => () => void;
  readonly close: () => Promise<void>;
}

/**
 * One subscriber per worker process for the API processes' answers to streamed chunks: how many chunks
 * of a run its client has taken (back-pressure) and whether the run is to be aborted (its client left).
 */
export const createRunControl = (subscriber: RedisClient, prefix: string, logger: Logger): RunControl => {
  const channel = controlChannel(prefix, randomUUID());
  const listeners = new Map<string, RunListener>();
  const onMessage = (_channel: string, message: string): void => {
    const space = message.indexOf(' ');
    const listener = listeners.get(message.slice(0, space));
    const value = message.slice(space + 1);
    if (listener === undefined) {
      return;
    }
    if (value === 'abort') {
      listener.onAbort();
    } else {
      listener.onAck(Number(value));
    }
  };
  // ioredis subscribes again by itself after a reconnect (on a cluster, after the channel's slot moved to
  // a promoted replica); a notice lost meanwhile is read from the ack key.
  subscriber.on(subscriber.isCluster ? 'smessage' : 'message', onMessage);
  const subscribed = subscriber.isCluster ? subscriber.ssubscribe(channel) : subscriber.subscribe(channel);
  subscribed.catch((error: unknown) => logger.error({ error: describeError(error) }, 'control channel subscription failed'));
  return {
    channel,
    watch: (simulationId, listener) => {
      listeners.set(simulationId, listener);
      return () => listeners.delete(simulationId);
    },
    close: () => {
      subscriber.disconnect();
      return Promise.resolve();
    },
  };
};
