import { fixedPid, type CpuSource } from '../processCpu.ts';
import { spawnProcess, type Spawned } from '../spawnProcess.ts';
import { startRedis } from '../startBenchStack.ts';
import { freePort } from '../../test/helpers/freePort.ts';

export interface NaivePeer {
  /** POST here with `{preset, num_interactions, seed}`. */
  readonly url: string;
  /** The peer's processes as CPU sources, named like the stack's (API, worker, Redis) so one table holds both. */
  readonly cpuSources: readonly CpuSource[];
  readonly close: () => Promise<void>;
}

/**
 * The naive peer (bench/naivePeer/api.ts and worker.ts) on a redis-server of its own, so its Redis CPU is
 * its own; with no redis-server installed it shares REDIS_URL's under its own queue name.
 */
export const startNaivePeer = async (workerThreads: number): Promise<NaivePeer> => {
  const redis = await startRedis();
  const port = await freePort();
  const env = { REDIS_URL: redis.url, WORKER_THREADS: String(workerThreads), PORT: String(port) };
  const started: Spawned[] = [];
  const close = async (): Promise<void> => {
    for (const spawned of started.reverse()) {
      await spawned.stop();
    }
    await redis.process?.stop();
  };
  try {
    started.push(await spawnProcess(process.execPath, ['bench/naivePeer/worker.ts'], env, (output) => output.includes('naive worker ready')));
    started.push(await spawnProcess(process.execPath, ['bench/naivePeer/api.ts'], env, (output) => output.includes('naive api ready')));
  } catch (error) {
    await close();
    throw error;
  }
  const [worker, api] = started.map((spawned) => spawned.child.pid ?? 0);
  const redisPid = redis.process?.child.pid;
  return {
    url: `http://127.0.0.1:${port}/simulations`,
    cpuSources: [
      fixedPid('API', api ?? 0),
      fixedPid('worker', worker ?? 0),
      ...(redisPid === undefined ? [] : [fixedPid('Redis', redisPid)]),
    ],
    close,
  };
};
