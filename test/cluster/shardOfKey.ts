import type { RedisCluster, RedisClusterNode } from '../helpers/startRedisCluster.ts';

/** The master serving a key's slot right now, and its replicas, read from CLUSTER NODES. */
export const shardOfKey = async (cluster: RedisCluster, key: string): Promise<{ master: RedisClusterNode; replicas: RedisClusterNode[] }> => {
  const any = cluster.nodes[0]!.admin;
  const slot = await any.cluster('KEYSLOT', key);
  const lines = String(await any.cluster('NODES')).trim().split('\n').map((line) => line.split(' '));
  const portOf = (address: string): number => Number(address.split('@')[0]!.split(':')[1]);
  const nodeOf = (port: number): RedisClusterNode => cluster.nodes.find((node) => node.port === port)!;
  const masterLine = lines.find(
    ([, , flags, , , , , , ...ranges]) =>
      flags!.includes('master') &&
      !flags!.includes('fail') &&
      ranges.some((range) => {
        const [from, to = from] = range.split('-').map(Number);
        return from! <= slot && slot <= to!;
      }),
  );
  if (masterLine === undefined) {
    throw new Error(`no master serves slot ${slot}`);
  }
  const replicas = lines.filter((line) => line[3] === masterLine[0]).map((line) => nodeOf(portOf(line[1]!)));
  return { master: nodeOf(portOf(masterLine[1]!)), replicas };
};
