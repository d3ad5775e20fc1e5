import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface Spawned {
  readonly child: ChildProcess;
  readonly output: () => string;
  readonly stop: () => Promise<void>;
}

/**
 * Starts a process of the stack and resolves once `ready` says so (a line it prints, or a probe), failing
 * with its output when it exits first or takes too long.
 */
export const spawnProcess = async (
  command: string,
  args: readonly string[],
  env: Record<string, string>,
  ready: (output: string) => boolean | Promise<boolean>,
  timeoutMs = 20_000,
): Promise<Spawned> => {
  const child = spawn(command, args, { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const chunks: string[] = [];
  const keep = (chunk: Buffer): void => {
    // Only the start of the output matters (readiness, start-up errors); keep memory flat under load.
    if (chunks.length < 200) {
      chunks.push(chunk.toString('utf8'));
    }
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const output = (): string => chunks.join('');
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${args.join(' ') || command} exited during start-up:\n${output()}`);
    }
    if (await ready(output())) {
      break;
    }
    if (Date.now() > until) {
      child.kill('SIGKILL');
      throw new Error(`${args.join(' ') || command} did not become ready:\n${output()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    child,
    output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
};
