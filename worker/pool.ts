import { Piscina } from 'piscina';
import type { SimulationTask, SimulationTaskResult } from './simulationTask.ts';

export type SimulationPool = Piscina<SimulationTask, SimulationTaskResult>;

const THREAD_ENTRY = new URL('./runSimulationTask.ts', import.meta.url).href;

/** A pool thread's young generation, MB: V8's two semi-spaces and its space for new large objects. */
const YOUNG_GENERATION_MB = 16;

/**
 * A fixed pool of engine threads. Threads start with the pool and never idle out, so no request pays a
 * thread's start-up. A worker takes up to `runs` jobs at once and each thread runs its share of them
 * together, taking turns chunk by chunk (runSimulationTask), so a run that waits on a client that does not
 * read holds no thread, and the pool's queue stays empty. A streamed run is stopped by ABORT_RUN on its
 * port (runSimulationTask.ts), never by terminating its thread, which serves other runs too.
 */
export const createSimulationPool = (threads: number, runs: number = threads): SimulationPool =>
  new Piscina<SimulationTask, SimulationTaskResult>({
    concurrentTasksPerWorker: Math.max(1, Math.ceil(runs / threads)),
    // Credits and chunks go by MessagePort; Atomics waiting would block a thread that has runs to serve.
    atomics: 'disabled',
    filename: THREAD_ENTRY,
    // The thread entry's named export (named exports only, docs/development.md#code-conventions).
    name: 'runSimulationTask',
    minThreads: threads,
    maxThreads: threads,
    idleTimeout: Number.POSITIVE_INFINITY,
    // A thread holds at most a few chunks (streamed runs) or one small body; this is ample headroom. Its
    // young generation is bounded too: left to its default (192 MB on the 24 GB test host), the Parquet
    // writer's short-lived garbage (~0.7 GB a 1,000,000-record run, ~10 MB of it live at once) made V8 grow
    // it to 32 or 64 MB, resident from then on (docs/architecture.md#a-workers-memory).
    resourceLimits: { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
  });
