import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const CLIENT_DIR = fileURLToPath(new URL('../../clients/python/', import.meta.url));

/**
 * Debian's interpreter, named by path: a pyenv or other python3 earlier on PATH has neither Debian's
 * pandas (python3-pandas) nor, often, its venv module. BSS_TEST_PYTHON overrides it.
 */
const SYSTEM_PYTHON = process.env.BSS_TEST_PYTHON ?? '/usr/bin/python3';

export interface Run {
  readonly code: number | null;
  readonly output: string;
}

export const run = (command: string, args: readonly string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<Run> =>
  new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? CLIENT_DIR,
      // No bytecode next to the sources; no proxy between the tests and the loopback service.
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTHONUNBUFFERED: '1', NO_PROXY: '127.0.0.1,localhost', no_proxy: '127.0.0.1,localhost', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });

export interface PythonEnvironment {
  readonly python: string;
  readonly install: Run;
  readonly remove: () => Promise<void>;
}

/**
 * A virtual environment of Debian's python3 that sees the system's packages (pandas), with the client
 * installed as a user would: `pip install ./clients/python`, with `--no-index` to prove it needs nothing
 * from a package index.
 */
export const createPythonEnvironment = async (): Promise<PythonEnvironment> => {
  const directory = await mkdtemp(path.join(tmpdir(), 'bss-python-'));
  const remove = () => rm(directory, { recursive: true, force: true });
  const created = await run(SYSTEM_PYTHON, ['-m', 'venv', '--system-site-packages', directory]);
  if (created.code !== 0) {
    await remove();
    throw new Error(`python3 -m venv failed (is python3-venv installed?):\n${created.output}`);
  }
  const python = path.join(directory, 'bin', 'python');
  const install = await run(python, ['-m', 'pip', 'install', '--no-index', '--no-input', '--disable-pip-version-check', CLIENT_DIR]);
  return { python, install, remove };
};
