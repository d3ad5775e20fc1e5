// `npm run bench`: POST /v1/simulations through the real stack (API, BullMQ, worker processes with their
// thread pools, PostgreSQL ledger, a fresh database, an enterprise-plan key) beside three baselines measured
// in the same run: a bare Koa hello-world, the engine run inline in a Koa handler (the ceiling), and a naive
// peer (bench/naivePeer: Koa → Queue.add → a BullMQ worker process with the same piscina pool and engine →
// job.waitUntilFinished; no auth, limits, ledger or streaming), whose non-2xx answers are counted.
// Targets (issue 37, which replaced those of issues 5, 12 and 28; docs/benchmarks/README.md): at 32
// connections, throughput >= 1.0 x the naive peer's at n = 1, and >= 2.0 x the peer's and >= 0.5 x inline
// at n = 1000; single-connection p50 at n = 1000 <= the peer's; CPU per request of all service processes
// (read from /proc around the timed runs) <= 1.2 x the naive peer's at n = 1, PostgreSQL <= 10 % of it;
// Redis used_memory grows <= 5 MB over 10,000 simulations. BENCH_LARGE=0 skips the 1,000,000-record runs
// and BENCH_MEMORY_SIMULATIONS=0 the memory run, for a quicker comparison of the fixed cost.
import os from 'node:os';
import { largeRunRows } from './largeRuns.ts';
import { type LoadOptions, type LoadResult, runLoad, runSequential } from './loadTest.ts';
import { simulationLoad } from './simulationLoad.ts';
import { cpuPerRequest, cpuSources, cpuTable, measureCpu, postgresShare } from './cpuTable.ts';
import { startBenchStack } from './startBenchStack.ts';
import { startNaivePeer } from './naivePeer/startNaivePeer.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const SEQUENTIAL_SECONDS = Number(process.env.BENCH_SEQUENTIAL_SECONDS ?? 4);
const CONNECTIONS = 32;
const MEMORY_RUNS = Number(process.env.BENCH_MEMORY_SIMULATIONS ?? 10_000);

const usedMemory = async (redis: { info: (section: string) => Promise<string> }): Promise<number> =>
  Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1] ?? Number.NaN);

const fixed = (value: number, digits = 2): string => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

const stack = await startBenchStack();
const sources = cpuSources(stack);
const peer = await startNaivePeer(stack.workerThreads).catch(async (error: unknown) => {
  await stack.close();
  throw error;
});
const rows: string[] = [];
const row = (cells: readonly string[]): void => {
  rows.push(`| ${cells.join(' | ')} |`);
};
const line = (name: string, result: LoadResult, note = ''): void =>
  row([name, fixed(result.rps, 0), fixed(result.p50), fixed(result.p99), String(result.requests), String(result.failures), note]);
const verdict = (ok: boolean): string => (ok ? 'meets target' : 'MISSES target');

try {
  const body = (n: number) => ({ preset: 'finance', num_interactions: n, seed: 42 });
  const api = (n: number): LoadOptions => simulationLoad(stack, n);
  const inline = (n: number): LoadOptions => ({ url: `${stack.baselineUrl}/inline`, method: 'POST', body: body(n) });
  const naive = (n: number): LoadOptions => ({ url: peer.url, method: 'POST', body: body(n) });

  // 1,000,000-record finance runs first, one per format (issue 13), on processes no load has grown yet.
  const largeRows = process.env.BENCH_LARGE === '0' ? [] : await largeRunRows(stack);

  // Memory next, on a Redis that has seen no simulation yet: the growth includes BullMQ's streams filling up.
  const memoryBefore = await usedMemory(stack.redis);
  const memoryLoad = MEMORY_RUNS > 0 ? await runLoad({ ...api(1000), connections: CONNECTIONS, amount: MEMORY_RUNS }) : undefined;
  await new Promise((resolve) => setTimeout(resolve, 1500));
  const memoryAfter = await usedMemory(stack.redis);
  const growthMb = (memoryAfter - memoryBefore) / 1024 / 1024;

  // Warm every path (JIT, pools, connections) before measuring.
  for (const options of [inline(1000), inline(1), api(1), naive(1)]) {
    await runLoad({ ...options, connections: CONNECTIONS, duration: 2 });
  }
  const hello = await runLoad({ url: `${stack.baselineUrl}/hello`, connections: CONNECTIONS, duration: SECONDS });
  // Each queued run right after its inline baseline, so both see the same machine.
  const inline1000 = await runLoad({ ...inline(1000), connections: CONNECTIONS, duration: SECONDS });
  const [api1000, cpu1000] = await measureCpu(sources.list, () => runLoad({ ...api(1000), connections: CONNECTIONS, duration: SECONDS }));
  const [peer1000, peerCpu1000] = await measureCpu(peer.cpuSources, () => runLoad({ ...naive(1000), connections: CONNECTIONS, duration: SECONDS }));
  const inline1 = await runLoad({ ...inline(1), connections: CONNECTIONS, duration: SECONDS });
  const [api1, cpu1] = await measureCpu(sources.list, () => runLoad({ ...api(1), connections: CONNECTIONS, duration: SECONDS }));
  const [peer1, peerCpu1] = await measureCpu(peer.cpuSources, () => runLoad({ ...naive(1), connections: CONNECTIONS, duration: SECONDS }));
  const single = {
    inline1000: await runSequential({ ...inline(1000), seconds: SEQUENTIAL_SECONDS }),
    api1000: await runSequential({ ...api(1000), seconds: SEQUENTIAL_SECONDS }),
    peer1000: await runSequential({ ...naive(1000), seconds: SEQUENTIAL_SECONDS }),
    inline1: await runSequential({ ...inline(1), seconds: SEQUENTIAL_SECONDS }),
    api1: await runSequential({ ...api(1), seconds: SEQUENTIAL_SECONDS }),
    peer1: await runSequential({ ...naive(1), seconds: SEQUENTIAL_SECONDS }),
  };

  const ratio1000 = api1000.rps / inline1000.rps;
  const ratio1 = api1.rps / inline1.rps;
  const extra1000 = single.api1000.p50 - single.inline1000.p50;
  const extra1 = single.api1.p50 - single.inline1.p50;
  const vsPeer = (ours: LoadResult, theirs: LoadResult, target: number): string => {
    const ratio = ours.rps / theirs.rps;
    return `ours ${fixed(ratio)} x peer; ${verdict(ratio >= target)} (>= ${target})`;
  };
  const share = (cpu: ReadonlyMap<string, number>): string => fixed(100 * postgresShare(cpu), 1);
  const nonOk = (result: LoadResult): string => `${fixed((100 * result.failures) / Math.max(1, result.requests + result.failures))} % non-2xx`;

  row(['scenario', 'req/s', 'p50 ms', 'p99 ms', 'requests', 'failed', 'vs target']);
  row(['---', '---:', '---:', '---:', '---:', '---:', '---']);
  line(`hello world, ${CONNECTIONS} conn`, hello, 'baseline (a)');
  line(`inline engine n=1000, ${CONNECTIONS} conn`, inline1000, 'ceiling (b)');
  line(`POST /v1/simulations n=1000, ${CONNECTIONS} conn`, api1000, `${fixed(ratio1000)} x inline; ${verdict(ratio1000 >= 0.5)} (>= 0.5)`);
  line(`naive peer n=1000, ${CONNECTIONS} conn`, peer1000, `${fixed(peer1000.rps / inline1000.rps)} x inline; ${nonOk(peer1000)}; ${vsPeer(api1000, peer1000, 2.0)}`);
  line(`inline engine n=1, ${CONNECTIONS} conn`, inline1, 'ceiling (b)');
  line(`POST /v1/simulations n=1, ${CONNECTIONS} conn`, api1, `${fixed(ratio1)} x inline; ${fixed(api1.rps / hello.rps, 3)} x hello`);
  line(`naive peer n=1, ${CONNECTIONS} conn`, peer1, `${fixed(peer1.rps / inline1.rps)} x inline; ${nonOk(peer1)}; ${vsPeer(api1, peer1, 1.0)}`);
  line('inline engine n=1000, 1 conn', single.inline1000);
  line('POST /v1/simulations n=1000, 1 conn', single.api1000, `p50 +${fixed(extra1000)} ms; ${verdict(single.api1000.p50 <= single.peer1000.p50)} (<= the peer's)`);
  line('naive peer n=1000, 1 conn', single.peer1000, `p50 +${fixed(single.peer1000.p50 - single.inline1000.p50)} ms`);
  line('inline engine n=1, 1 conn', single.inline1);
  line('POST /v1/simulations n=1, 1 conn', single.api1, `p50 +${fixed(extra1)} ms`);
  line('naive peer n=1, 1 conn', single.peer1, `p50 +${fixed(single.peer1.p50 - single.inline1.p50)} ms`);
  if (memoryLoad !== undefined) {
    line(`${MEMORY_RUNS} x POST n=1000 (memory run), ${CONNECTIONS} conn`, memoryLoad, 'first run, cold');
    row([
      `Redis used_memory growth over ${memoryLoad.requests} simulations`,
      '',
      '',
      '',
      '',
      '',
      `${fixed(growthMb)} MB (${fixed(memoryBefore / 1048576)} -> ${fixed(memoryAfter / 1048576)} MB); ${verdict(growthMb <= 5)} (<= 5 MB)`,
    ]);
  }

  process.stdout.write(
    `\n${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), load average ${os.loadavg().map((value) => value.toFixed(2)).join(' ')}; ` +
      `${stack.workerProcesses} worker process(es) x ${stack.workerThreads} thread(s); ` +
      `${stack.privateRedis ? 'private redis-server' : 'shared Redis (memory figure includes other clients)'}\n\n${rows.join('\n')}\n\n${largeRows.join('\n')}\n\n` +
      `CPU per request (ms of CPU time per answered request, /proc utime+stime, ${CONNECTIONS} connections):\n\n` +
      `${cpuTable([
        { name: 'POST n=1', result: api1, cpu: cpu1, targets: { 'all processes': Number((1.2 * cpuPerRequest(peerCpu1, peer1)).toFixed(3)) } },
        { name: 'naive peer n=1', result: peer1, cpu: peerCpu1 },
        { name: 'POST n=1000', result: api1000, cpu: cpu1000 },
        { name: 'naive peer n=1000', result: peer1000, cpu: peerCpu1000 },
      ])}\n\n` +
      `PostgreSQL's share of the service's CPU: n = 1 ${share(cpu1)} %, n = 1000 ${share(cpu1000)} % (target <= 10 %)\n`,
  );
} finally {
  await peer.close();
  await sources.close();
  await stack.close();
}
