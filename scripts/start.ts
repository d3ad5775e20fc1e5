import { type ChildProcess, fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../shared/config.ts';
import { createLogger } from '../shared/logger.ts';
import { preflight } from './preflight.ts';

// `npm start`: one command for the whole service. Applies migrations, then supervises API_PROCESSES API
// processes (they share PORT through SO_REUSEPORT, so the kernel spreads connections) and
// WORKER_PROCESSES workers, restarting any that dies and stopping them all on SIGTERM.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const config = loadConfig();
const logger = createLogger(config.logLevel, 'supervisor');

const { problem, applied } = await preflight(config);
if (problem !== undefined) {
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
if (applied.length > 0) {
  logger.info({ applied }, 'migrations applied');
}

interface Managed {
  readonly name: string;
  readonly script: string;
  child?: ChildProcess;
}

const managed: Managed[] = [
  ...Array.from({ length: config.apiProcesses }, (_, index) => ({ name: `api-${index + 1}`, script: 'api/server.ts' })),
  ...Array.from({ length: config.workerProcesses }, (_, index) => ({ name: `worker-${index + 1}`, script: 'worker/main.ts' })),
];

let stopping = false;

const launch = (entry: Managed): void => {
  const child = fork(path.join(root, entry.script), [], { cwd: root, stdio: 'inherit', env: { ...process.env, PROCESS_NAME: entry.name } });
  entry.child = child;
  child.on('exit', (code, signal) => {
    entry.child = undefined;
    if (stopping) {
      if (managed.every((other) => other.child === undefined)) {
        logger.info('all processes stopped');
        process.exit(0);
      }
      return;
    }
    logger.error({ process: entry.name, code, signal }, 'process exited; restarting in 1 s');
    setTimeout(() => launch(entry), 1000).unref();
  });
};

for (const entry of managed) {
  launch(entry);
}

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) {
      return;
    }
    stopping = true;
    logger.info({ signal }, 'stopping');
    for (const entry of managed) {
      entry.child?.kill('SIGTERM');
    }
  });
}
