// `npm run test:cluster`: the second pass of `npm test`. Starts one local Redis Cluster (3 masters) for the
// whole pass, runs ava on the given files with TEST_REDIS_CLUSTER_NODES pointing at it (every test helper
// then puts apps, workers and its own connections on the cluster; test/helpers/testRedis.ts), and stops
// the cluster whatever the outcome. Files isolate themselves by Redis prefix as on the one shared Redis.
import { spawn } from 'node:child_process';
import { startRedisCluster } from './startRedisCluster.ts';

const startedAt = Date.now();
const cluster = await startRedisCluster();
process.stdout.write(`Redis Cluster (3 masters) at ${cluster.seeds}, up in ${Date.now() - startedAt} ms\n`);
const ava = spawn(process.execPath, ['node_modules/ava/entrypoints/cli.mjs', ...process.argv.slice(2)], {
  stdio: 'inherit',
  env: { ...process.env, TEST_REDIS_CLUSTER_NODES: cluster.seeds },
});
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    stopping = true;
    ava.kill(signal);
  });
}
const code = await new Promise<number>((resolve) => ava.once('exit', (exitCode) => resolve(exitCode ?? 1)));
await cluster.stop();
process.stdout.write(`cluster pass ${code === 0 ? 'passed' : 'failed'} in ${Math.round((Date.now() - startedAt) / 1000)} s\n`);
process.exit(stopping ? 1 : code);
