// `npm run bench:cluster`: the same queued POST /v1/simulations load on one redis-server and on a local
// Redis Cluster (3 masters on this machine, test/helpers/startRedisCluster.ts), one stack after the
// other in the same run, with the ratio cluster / single. Alternated (single, cluster, single, cluster)
// so a noisy machine shifts both alike. `BENCH_REDIS_CLUSTER=1 npm run bench` runs the whole HTTP bench
// on the cluster.
import os from 'node:os';
import { type LoadResult, runLoad, runSequential } from './loadTest.ts';
import { simulationLoad } from './simulationLoad.ts';
import { startBenchStack } from './startBenchStack.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const SEQUENTIAL_SECONDS = Number(process.env.BENCH_SEQUENTIAL_SECONDS ?? 3);
const CONNECTIONS = 32;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

interface Figures {
  readonly n1: LoadResult;
  readonly n1000: LoadResult;
  readonly sequential: LoadResult;
}

const measure = async (cluster: boolean): Promise<Figures> => {
  const stack = await startBenchStack({ cluster });
  try {
    const api = (n: number) => simulationLoad(stack, n);
    await runLoad({ ...api(1), connections: CONNECTIONS, duration: 2 });
    return {
      n1: await runLoad({ ...api(1), connections: CONNECTIONS, duration: SECONDS }),
      n1000: await runLoad({ ...api(1000), connections: CONNECTIONS, duration: SECONDS }),
      sequential: await runSequential({ ...api(1), seconds: SEQUENTIAL_SECONDS }),
    };
  } finally {
    await stack.close();
  }
};

const results: Record<'single' | 'cluster', Figures[]> = { single: [], cluster: [] };
for (let round = 0; round < ROUNDS; round += 1) {
  results.single.push(await measure(false));
  results.cluster.push(await measure(true));
}
const mean = (values: number[]): number => values.reduce((sum, value) => sum + value, 0) / values.length;
const pick = (kind: 'single' | 'cluster', get: (figures: Figures) => number): number => mean(results[kind].map(get));
const rows: [string, (figures: Figures) => number][] = [
  [`POST n=1, ${CONNECTIONS} conn, req/s`, (f) => f.n1.rps],
  [`POST n=1, ${CONNECTIONS} conn, p99 ms`, (f) => f.n1.p99],
  [`POST n=1000, ${CONNECTIONS} conn, req/s`, (f) => f.n1000.rps],
  [`POST n=1000, ${CONNECTIONS} conn, p99 ms`, (f) => f.n1000.p99],
  ['POST n=1, 1 conn, p50 ms', (f) => f.sequential.p50],
];
const failures = (kind: 'single' | 'cluster'): number => results[kind].reduce((sum, f) => sum + f.n1.failures + f.n1000.failures + f.sequential.failures, 0);
process.stdout.write(
  `\n${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), load average ${os.loadavg().map((value) => value.toFixed(2)).join(' ')}; ` +
    `1 API process, 1 worker process; mean of ${ROUNDS} alternated round(s) of ${SECONDS} s\n\n` +
    `| measure | one Redis | Redis Cluster (3 masters) | cluster / one |\n| --- | ---: | ---: | ---: |\n` +
    rows
      .map(([name, get]) => {
        const single = pick('single', get);
        const cluster = pick('cluster', get);
        return `| ${name} | ${single.toFixed(1)} | ${cluster.toFixed(1)} | ${(cluster / single).toFixed(2)} |`;
      })
      .join('\n') +
    `\n| failed requests | ${failures('single')} | ${failures('cluster')} | |\n`,
);
