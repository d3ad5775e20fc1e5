import { Piscina } from 'piscina';
import type { SimulationTask, SimulationTaskResult } from './simulationTask.ts';

export type SimulationPool = Piscina<SimulationTask, SimulationTaskResult>;

const THREAD_ENTRY = new URL('./runSimulationTask.ts', import.meta.url).href;

/**
 * A fixed pool of engine threads. Threads start with the pool and never idle out, so no request pays a
 * thread's start-up. The worker takes at most `threads` jobs at once, so the pool's queue stays empty;
 * an AbortSignal passed to run() terminates a thread mid-run, and piscina replaces it.
 */
export const createSimulationPool = (threads: number): SimulationPool =>
  new Piscina<SimulationTask, SimulationTaskResult>({
    filename: THREAD_ENTRY,
    // The thread entry's named export (named exports only, STYLE §10).
    name: 'runSimulationTask',
    minThreads: threads,
    maxThreads: threads,
    idleTimeout: Number.POSITIVE_INFINITY,
    // A thread holds at most a few chunks (streamed runs) or one small body; this is ample headroom.
    resourceLimits: { maxOldGenerationSizeMb: 256 },
  });
