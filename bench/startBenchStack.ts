import os from 'node:os';
import { Cluster, Redis } from 'ioredis';
import type { RedisClient } from '../shared/redis/createRedis.ts';
import { startRedisCluster } from '../test/helpers/startRedisCluster.ts';
import { sql } from 'slonik';
import { z } from 'zod';
import { createDatabasePool } from '../shared/db/createDatabasePool.ts';
import { buildAccount, buildApiKey } from '../test/helpers/factories.ts';
import { freePort } from '../test/helpers/freePort.ts';
import { createTestDatabase, TEST_POSTGRES_URL } from '../test/helpers/testDatabase.ts';
import { spawnProcess, type Spawned } from './spawnProcess.ts';

export interface BenchStack {
  readonly apiUrl: string;
  readonly baselineUrl: string;
  readonly key: string;
  readonly redis: RedisClient;
  /** `cluster`: a local Redis Cluster of 3 masters (BENCH_REDIS_CLUSTER=1); `single`: one redis-server. */
  readonly redisKind: 'single' | 'cluster';
  /** Whether Redis is a private server of the bench (so used_memory is the stack's alone). */
  readonly privateRedis: boolean;
  readonly workerThreads: number;
  readonly workerProcesses: number;
  /** Pids of the stack's processes, for the CPU table: the API, each worker, and a private redis-server. */
  readonly pids: { readonly api: number; readonly workers: readonly number[]; readonly redis?: number };
  /** The bench database's name and URL, and the admin URL its backends are looked up from. */
  readonly database: { readonly name: string; readonly url: string; readonly adminUrl: string };
  /** REDIS_PREFIX of the stack's processes. */
  readonly prefix: string;
  readonly close: () => Promise<void>;
}

export interface BenchStackOptions {
  /** Extra node flags for the API and worker processes (e.g. --cpu-prof). */
  readonly nodeArgs?: readonly string[];
  /** Run on a local Redis Cluster (3 masters, test/helpers/startRedisCluster.ts). Default: BENCH_REDIS_CLUSTER=1. */
  readonly cluster?: boolean;
}

const httpOk = async (url: string): Promise<boolean> => {
  try {
    return (await fetch(url)).ok;
  } catch {
    return false;
  }
};

/** A private redis-server when one is installed, so its used_memory counts this stack only. */
export const startRedis = async (): Promise<{ url: string; process?: Spawned }> => {
  const port = await freePort();
  try {
    const server = await spawnProcess('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {}, (output) =>
      output.includes('Ready to accept connections'),
    );
    return { url: `redis://127.0.0.1:${port}`, process: server };
  } catch {
    return { url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379' };
  }
};

/**
 * The real stack: a fresh database, Redis, the API (`node api/server.ts`), worker processes
 * (`node worker/main.ts`), the baseline server, and an enterprise-plan key.
 */
export const startBenchStack = async (options: BenchStackOptions = {}): Promise<BenchStack> => {
  const nodeArgs = options.nodeArgs ?? [];
  const workerThreads = Number(process.env.BENCH_WORKER_THREADS ?? Math.max(1, os.availableParallelism() - 1));
  const workerProcesses = Number(process.env.BENCH_WORKER_PROCESSES ?? 1);
  const onCluster = options.cluster ?? process.env.BENCH_REDIS_CLUSTER === '1';
  const redisCluster = onCluster ? await startRedisCluster() : undefined;
  const redisServer = redisCluster === undefined ? await startRedis() : { url: '' };
  const prefix = `bench${process.pid}`;
  const database = await createTestDatabase();
  const pool = await createDatabasePool(database.url);
  // The enterprise plan, with its per-minute rate lifted: a benchmark sends thousands a minute by design.
  await pool.query(sql.type(z.object({}))`UPDATE plans SET requests_per_minute = 100000000 WHERE name = 'enterprise'`);
  const account = await buildAccount(pool, { plan: 'enterprise' });
  const { key } = await buildApiKey(pool, account.id);
  await pool.end();

  const common = {
    NODE_ENV: 'development',
    DATABASE_URL: database.url,
    ...(redisCluster === undefined ? { REDIS_URL: redisServer.url } : { REDIS_CLUSTER_NODES: redisCluster.seeds }),
    REDIS_PREFIX: prefix,
  };
  const [apiPort, baselinePort] = await Promise.all([freePort(), freePort()]);
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const baselineUrl = `http://127.0.0.1:${baselinePort}`;
  const started: Spawned[] = [];
  const redis: RedisClient = redisCluster === undefined ? new Redis(redisServer.url) : new Cluster([...redisCluster.nodes.map(({ port }) => ({ host: '127.0.0.1', port }))]);
  const close = async (): Promise<void> => {
    // API first (it waits on workers), then workers, then what they all use.
    for (const spawned of started.reverse()) {
      await spawned.stop();
    }
    if (redisCluster === undefined && redisServer.process === undefined) {
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) {
        await redis.unlink(...keys);
      }
    }
    redis.disconnect();
    await redisServer.process?.stop();
    await redisCluster?.stop();
    await database.drop();
  };
  try {
    for (let index = 0; index < workerProcesses; index += 1) {
      started.push(
        await spawnProcess(process.execPath, [...nodeArgs, 'worker/main.ts'], { ...common, LOG_LEVEL: 'info', WORKER_THREADS: String(workerThreads) }, (output) =>
          output.includes('"msg":"worker ready"'),
        ),
      );
    }
    // Access logs are per request; the baselines log nothing, so neither does the API here.
    started.push(await spawnProcess(process.execPath, [...nodeArgs, 'api/server.ts'], { ...common, LOG_LEVEL: 'warn', PORT: String(apiPort) }, () => httpOk(`${apiUrl}/ready`)));
    started.push(await spawnProcess(process.execPath, ['bench/baselineServer.ts'], { PORT: String(baselinePort) }, (output) => output.includes('baseline ready')));
  } catch (error) {
    await close();
    throw error;
  }
  const pidOf = (spawned: Spawned | undefined): number => spawned?.child.pid ?? 0;
  const redisPid = redisServer.process?.child.pid;
  return {
    apiUrl,
    baselineUrl,
    key,
    redis,
    privateRedis: redisServer.process !== undefined || redisCluster !== undefined,
    redisKind: redisCluster === undefined ? 'single' : 'cluster',
    workerThreads,
    workerProcesses,
    pids: { api: pidOf(started[workerProcesses]), workers: started.slice(0, workerProcesses).map(pidOf), ...(redisPid === undefined ? {} : { redis: redisPid }) },
    database: { name: database.name, url: database.url, adminUrl: TEST_POSTGRES_URL },
    prefix,
    close,
  };
};
