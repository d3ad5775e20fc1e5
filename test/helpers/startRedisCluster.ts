import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import type { RedisNode, RedisTarget } from '../../shared/redis/RedisTarget.ts';
import { eventually } from './eventually.ts';

const run = promisify(execFile);

export interface RedisClusterNode {
  readonly port: number;
  /** A plain connection to this one node (CLUSTER INFO, CLUSTER FAILOVER, ROLE). */
  readonly admin: Redis;
  /** Kills the node's process (SIGKILL), as a crashed host would stop. */
  readonly kill: () => Promise<void>;
  /** Starts a killed node again, empty (nothing is persisted) but with its identity: it rejoins the cluster. */
  readonly restart: () => Promise<void>;
}

export interface RedisCluster {
  readonly nodes: readonly RedisClusterNode[];
  /** `host:port,…`: REDIS_CLUSTER_NODES of the apps and workers under test. */
  readonly seeds: string;
  readonly target: RedisTarget;
  readonly stop: () => Promise<void>;
}

/** Both a port and its cluster bus port (port + 10000) must be free, so the usual ephemeral range won't do. */
const freeClusterPort = async (taken: Set<number>): Promise<number> => {
  const canListen = (port: number): Promise<boolean> =>
    new Promise((resolve) => {
      const server = net.createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    if (!taken.has(port) && !taken.has(port + 10_000) && (await canListen(port)) && (await canListen(port + 10_000))) {
      taken.add(port);
      taken.add(port + 10_000);
      return port;
    }
  }
};

const listening = (port: number): Promise<true | undefined> =>
  new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(undefined));
  });

/**
 * A Redis Cluster of the test's own from the `redis-server` binary: `masters` masters with `replicasPerMaster`
 * replicas each, on loopback ports, in memory only, in a temporary directory removed by `stop`. Resolves
 * once every node reports `cluster_state:ok`, knows every other node, and all 16384 slots are served.
 */
export const startRedisCluster = async (options: { readonly masters?: number; readonly replicasPerMaster?: number } = {}): Promise<RedisCluster> => {
  const masters = options.masters ?? 3;
  const replicas = options.replicasPerMaster ?? 0;
  const count = masters * (1 + replicas);
  const directory = await mkdtemp(path.join(os.tmpdir(), 'bss-redis-cluster-'));
  const taken = new Set<number>();
  const ports: number[] = [];
  for (let index = 0; index < count; index += 1) {
    ports.push(await freeClusterPort(taken));
  }
  const children = new Map<number, { child: ChildProcess; exited: Promise<void> }>();
  const startNode = (port: number): void => {
    const child = spawn(
      'redis-server',
      [
        '--port', String(port), '--bind', '127.0.0.1', '--dir', directory,
        // The node's identity and view of the cluster: a restarted node rejoins as itself.
        '--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`,
        // A dead master is noticed, and its replica promoted, within a few seconds.
        '--cluster-node-timeout', '2000',
        '--save', '', '--appendonly', 'no',
      ],
      { stdio: 'ignore' },
    );
    children.set(port, { child, exited: new Promise<void>((resolve) => child.once('exit', () => resolve())) });
  };
  for (const port of ports) {
    startNode(port);
  }
  // A test process that ends without its teardown (ava's timeout) must not leave nodes running.
  const killOnExit = (): void => {
    for (const { child } of children.values()) child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);
  const stopAll = async (): Promise<void> => {
    process.off('exit', killOnExit);
    for (const { child } of children.values()) {
      child.kill('SIGKILL');
    }
    await Promise.all([...children.values()].map(({ exited }) => exited));
    await rm(directory, { recursive: true, force: true });
  };
  const admins: Redis[] = [];
  try {
    for (const port of ports) {
      await eventually(() => listening(port), 10_000, 50);
    }
    await run('redis-cli', ['--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', String(replicas), '--cluster-yes']);
    for (const port of ports) {
      const admin = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: null, connectionName: 'test:cluster-admin' });
      admin.on('error', () => {});
      admins.push(admin);
    }
    await eventually(
      async () => {
        const infos = await Promise.all(admins.map((admin) => admin.cluster('INFO')));
        const ok = infos.every(
          (info) => /cluster_state:ok/.test(info) && info.includes('cluster_slots_ok:16384') && info.includes(`cluster_known_nodes:${count}`),
        );
        return ok ? true : undefined;
      },
      30_000,
      100,
    );
  } catch (error) {
    for (const admin of admins) admin.disconnect();
    await stopAll();
    throw error;
  }
  const nodes: RedisNode[] = ports.map((port) => ({ host: '127.0.0.1', port }));
  return {
    nodes: ports.map((port, index) => ({
      port,
      admin: admins[index]!,
      kill: async () => {
        const entry = children.get(port)!;
        entry.child.kill('SIGKILL');
        await entry.exited;
      },
      restart: async () => {
        startNode(port);
        await eventually(() => listening(port), 10_000, 50);
      },
    })),
    seeds: nodes.map(({ host, port }) => `${host}:${port}`).join(','),
    target: { kind: 'cluster', nodes },
    stop: async () => {
      for (const admin of admins) admin.disconnect();
      await stopAll();
    },
  };
};
