import { type CpuSource, databaseBackends, fixedPid, startCpuWindow } from './processCpu.ts';
import type { LoadResult } from './loadTest.ts';
import type { BenchStack } from './startBenchStack.ts';

const ALL = 'all processes';

/** The stack's processes as CPU sources: API, worker(s), the bench database's backends, Redis. */
export const cpuSources = (stack: BenchStack): { list: readonly CpuSource[]; close: () => Promise<void> } => {
  const backends = databaseBackends('PostgreSQL backends', stack.database.adminUrl, stack.database.name);
  const list: CpuSource[] = [
    fixedPid('API', stack.pids.api),
    { name: 'worker', pids: () => Promise.resolve(stack.pids.workers) },
    backends,
    ...(stack.pids.redis === undefined ? [] : [fixedPid('Redis', stack.pids.redis)]),
  ];
  return { list, close: backends.close };
};

/** Runs `work` inside a CPU window over the sources. */
export const measureCpu = async <T>(sources: readonly CpuSource[], work: () => Promise<T>): Promise<[T, Map<string, number>]> => {
  const window = await startCpuWindow(sources);
  const result = await work();
  return [result, await window.stop()];
};

export interface CpuRow {
  readonly name: string;
  readonly result: LoadResult;
  readonly cpu: ReadonlyMap<string, number>;
  /** ms per request that a column must not exceed, by column name. */
  readonly targets?: Readonly<Record<string, number>>;
}

/** ms of CPU of every source together per answered request. */
export const cpuPerRequest = (cpu: ReadonlyMap<string, number>, result: LoadResult): number =>
  [...cpu.values()].reduce((sum, value) => sum + value, 0) / Math.max(1, result.requests + result.failures);

/** The PostgreSQL backends' share of the CPU of every source, 0–1. */
export const postgresShare = (cpu: ReadonlyMap<string, number>): number => {
  const total = [...cpu.values()].reduce((sum, value) => sum + value, 0);
  return total === 0 ? 0 : (cpu.get('PostgreSQL backends') ?? 0) / total;
};

/** A markdown table: one row per scenario, one column per process, ms of CPU per answered request. */
export const cpuTable = (rows: readonly CpuRow[]): string => {
  const columns = [...(rows[0]?.cpu.keys() ?? []), ALL];
  const lines = [`| scenario | req/s | ${columns.join(' | ')} |`, `| --- | ---: | ${columns.map(() => '---:').join(' | ')} |`];
  for (const row of rows) {
    const requests = Math.max(1, row.result.requests + row.result.failures);
    const total = [...row.cpu.values()].reduce((sum, value) => sum + value, 0);
    const cell = (column: string): string => {
      const perRequest = (column === ALL ? total : (row.cpu.get(column) ?? 0)) / requests;
      const target = row.targets?.[column];
      return `${perRequest.toFixed(3)}${target === undefined ? '' : perRequest <= target ? ` (<= ${target} ok)` : ` (MISSES <= ${target})`}`;
    };
    lines.push(`| ${row.name} | ${row.result.rps.toFixed(0)} | ${columns.map(cell).join(' | ')} |`);
  }
  return lines.join('\n');
};
