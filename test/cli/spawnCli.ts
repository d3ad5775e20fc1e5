import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MANUAL_CLOCK = fileURLToPath(new URL('./manualClock.ts', import.meta.url));
// The project's pinned Node 24 (a devDependency), which `npm run` puts first on PATH.
const NODE = `${ROOT}node_modules/.bin/node`;

export interface CliRun {
  readonly code: number | null;
  readonly stdout: Buffer;
  readonly stderr: string;
}

export interface CliTarget {
  readonly url: string;
  readonly key?: string;
}

/** The CLI's environment: BSS_API_URL and BSS_API_KEY, and nothing of the caller's own BSS_* settings. */
export const cliEnv = (target: CliTarget): NodeJS.ProcessEnv => {
  const env: NodeJS.ProcessEnv = { ...process.env, BSS_API_URL: target.url };
  delete env.BSS_API_KEY;
  return target.key === undefined ? env : { ...env, BSS_API_KEY: target.key };
};

// Each run starts npm and Node; a few at a time keep this 2-core machine usable for everyone else.
const MAX_RUNNING = 3;
let running = 0;
const waiting: Array<() => void> = [];

const limited = async <T>(work: () => Promise<T>): Promise<T> => {
  if (running >= MAX_RUNNING) {
    // The finishing run hands its slot straight to us, so `running` already counts this one.
    await new Promise<void>((resolve) => waiting.push(resolve));
  } else {
    running += 1;
  }
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next === undefined) {
      running -= 1;
    } else {
      next();
    }
  }
};

const collect = (child: ChildProcess): Promise<CliRun> => {
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout?.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout: Buffer.concat(stdout), stderr: Buffer.concat(stderr).toString('utf8') }));
  });
};

/** `npm run --silent cli -- …args`, exactly as a user types it, with stdout kept as bytes. */
export const runCli = (args: readonly string[], target: CliTarget): Promise<CliRun> =>
  limited(() =>
    collect(spawn('npm', ['run', '--silent', 'cli', '--', ...args], { cwd: ROOT, env: cliEnv(target), stdio: ['ignore', 'pipe', 'pipe'], timeout: 90_000 })),
  );

/** A shell command line of words, each quoted for `script -c`. */
export const shellLine = (words: readonly string[]): string => words.map((word) => `'${word.replaceAll("'", `'\\''`)}'`).join(' ');

export interface ClockedCli {
  /** The stderr so far. */
  readonly stderr: () => string;
  /** Ends the CLI's current wait, as if its Retry-After had gone by. */
  readonly tick: () => void;
  readonly done: Promise<CliRun>;
}

/**
 * `node cli/bss.ts …args` (what `npm run cli` runs) with a manual clock: its Retry-After waits end when
 * the test calls `tick`, after it has moved the service's rate window by as much. No test sleeps.
 */
export const startClockedCli = (args: readonly string[], target: CliTarget): ClockedCli => {
  const child = spawn(NODE, ['--import', MANUAL_CLOCK, 'cli/bss.ts', ...args], { cwd: ROOT, env: cliEnv(target), stdio: ['pipe', 'pipe', 'pipe'], timeout: 90_000 });
  const stderr: Buffer[] = [];
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  return {
    stderr: () => Buffer.concat(stderr).toString('utf8'),
    tick: () => child.stdin.write('tick\n'),
    done: collect(child).then((run) => ({ ...run, stderr: Buffer.concat(stderr).toString('utf8') })),
  };
};
