import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { testRedisEnv } from './testRedis.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface ServiceProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  /** Where it serves HTTP; '' for a process that serves none (a worker). */
  readonly url: string;
  /** Everything the process wrote so far. */
  readonly output: () => string;
  /** Resolves with the exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code. */
  readonly stop: (graceMs?: number) => Promise<number | null>;
}

/** Starts a Node entry point as production does and resolves once its output includes `readyLine`. */
export const spawnService = async (options: {
  readonly script: string;
  readonly env: Record<string, string>;
  readonly readyLine: string;
  readonly url?: string;
  readonly timeoutMs?: number;
}): Promise<ServiceProcess> => {
  const child = spawn(process.execPath, [path.join(ROOT, options.script)], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', LOG_LEVEL: 'info', ...(options.env.REDIS_URL === undefined ? testRedisEnv() : {}), ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const chunks: string[] = [];
  const output = (): string => chunks.join('');
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${options.script} did not start:\n${output()}`)), options.timeoutMs ?? 20_000);
    const onData = (chunk: Buffer): void => {
      chunks.push(chunk.toString('utf8'));
      if (output().includes(options.readyLine)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${options.script} exited before it was ready:\n${output()}`));
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
  return { child, pid: child.pid ?? -1, url: options.url ?? '', output, exited, stop };
};
