import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../../shared/logger.ts';
import { type SimulationWorker, startSimulationWorker } from '../../worker/startSimulationWorker.ts';
import { TEST_REDIS_URL } from './testRedis.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface StartTestWorkerOptions {
  /** The app's prefix (TestApp.redisPrefix): API and worker must share it. */
  readonly redisPrefix: string;
  readonly threads?: number;
  readonly redisUrl?: string;
}

/** A real BullMQ Worker and a real piscina pool, in the test's own process. */
export const startTestWorker = async (options: StartTestWorkerOptions): Promise<SimulationWorker> => {
  const worker = startSimulationWorker({
    redisUrl: options.redisUrl ?? TEST_REDIS_URL,
    redisPrefix: options.redisPrefix,
    threads: options.threads ?? 1,
    logger: createLogger('silent', 'worker'),
  });
  await worker.ready();
  return worker;
};

export interface WorkerProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Everything the process wrote to stdout and stderr so far. */
  readonly output: () => string;
  /** Resolves with the exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
  /** SIGTERM, then SIGKILL if it is still there after `graceMs`. */
  readonly stop: (graceMs?: number) => Promise<number | null>;
}

/**
 * `node worker/main.ts` as its own process, as production runs it, configured through the environment;
 * resolves once it logs that it takes jobs.
 */
export const spawnWorkerProcess = async (options: StartTestWorkerOptions & { readonly env?: Record<string, string> }): Promise<WorkerProcess> => {
  const child = spawn(process.execPath, [path.join(ROOT, 'worker/main.ts')], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      REDIS_URL: options.redisUrl ?? TEST_REDIS_URL,
      REDIS_PREFIX: options.redisPrefix,
      WORKER_THREADS: String(options.threads ?? 1),
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const chunks: string[] = [];
  child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const output = (): string => chunks.join('');
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker process did not become ready:\n${output()}`)), 20_000);
    const check = (): void => {
      if (output().includes('"msg":"worker ready"')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', check);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`worker process exited before it was ready:\n${output()}`));
    });
  });
  const stop = async (graceMs = 15_000): Promise<number | null> => {
    if (child.exitCode !== null || child.signalCode !== null) {
      return child.exitCode;
    }
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    const code = await exited;
    clearTimeout(timer);
    return code;
  };
  return { child, pid: child.pid ?? -1, output, exited, stop };
};
