import { type ChildProcess, fork } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../shared/config.ts';
import { createLogger } from '../shared/logger.ts';
import { describePortProblem, PORT_IN_USE_EXIT_CODE, probePort } from '../shared/process/probePort.ts';
import { watchParent } from '../shared/process/watchParent.ts';
import { preflight } from './preflight.ts';

// `npm start`: one command for the whole service. Applies migrations, then supervises API_PROCESSES API
// processes (with more than one, they share PORT through SO_REUSEPORT, so the kernel spreads connections)
// and WORKER_PROCESSES workers, restarting any that dies and stopping them all on SIGTERM, or when the
// process that started it (npm, a shell, a process manager) is gone.
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

// Checked before any API process starts: they may share the port with each other, never with another service.
const portProblem = await probePort(config.port);
if (portProblem !== undefined) {
  process.stderr.write(`${describePortProblem(config.port, portProblem)}\n`);
  process.exit(1);
}

interface Managed {
  readonly name: string;
  readonly script: string;
  readonly args: readonly string[];
  child?: ChildProcess;
}

// `--shared-port` turns SO_REUSEPORT on: only this supervisor's own API processes share a port.
const apiArgs = config.apiProcesses > 1 ? ['--shared-port'] : [];
const managed: Managed[] = [
  ...Array.from({ length: config.apiProcesses }, (_, index) => ({ name: `api-${index + 1}`, script: 'api/server.ts', args: apiArgs })),
  ...Array.from({ length: config.workerProcesses }, (_, index) => ({ name: `worker-${index + 1}`, script: 'worker/main.ts', args: [] })),
];

let stopping = false;
let exitCode = 0;

const exitWhenAllStopped = (): void => {
  if (managed.every((other) => other.child === undefined)) {
    logger.info('all processes stopped');
    process.exit(exitCode);
  }
};

const stop = (reason: string, code = 0): void => {
  if (stopping) {
    return;
  }
  stopping = true;
  exitCode = code;
  logger.info({ reason }, 'stopping');
  for (const entry of managed) {
    entry.child?.kill('SIGTERM');
  }
  exitWhenAllStopped();
};

const launch = (entry: Managed): void => {
  // fork keeps an IPC channel to each child: when this process dies, even by SIGKILL, the channel closes
  // and the child stops itself (shared/process/watchParent.ts).
  const child = fork(path.join(root, entry.script), [...entry.args], { cwd: root, stdio: 'inherit', env: { ...process.env, PROCESS_NAME: entry.name } });
  entry.child = child;
  child.on('exit', (code, signal) => {
    entry.child = undefined;
    // A child stops itself when it sees this supervisor's parent gone, and it may see that first: the
    // supervisor then learns it now, so the stop is logged as one and nothing is restarted.
    parentLost();
    if (stopping) {
      exitWhenAllStopped();
      return;
    }
    if (code === PORT_IN_USE_EXIT_CODE) {
      // Restarting cannot help: the API process said why on stderr; stop the rest and fail.
      stop('port in use', 1);
      return;
    }
    logger.error({ process: entry.name, code, signal }, 'process exited; restarting in 1 s');
    setTimeout(() => {
      if (!stopping) {
        launch(entry);
      }
    }, 1000).unref();
  });
};

for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
  process.on(signal, () => stop(signal));
}
const parentLost = watchParent((reason) => stop(`parent exited (${reason})`));

for (const entry of managed) {
  launch(entry);
}
logger.info({ api_processes: config.apiProcesses, worker_processes: config.workerProcesses }, 'supervisor started');
