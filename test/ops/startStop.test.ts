import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test, { type ExecutionContext } from 'ava';
import { eventually } from '../helpers/eventually.ts';
import { freePort } from '../helpers/freePort.ts';
import { type ServiceProcess, spawnService } from '../helpers/spawnService.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/testDatabase.ts';
import { createRedisPrefix, deleteRedisPrefix, testRedisEnv } from '../helpers/testRedis.ts';
import { descendantsOf, isRunning } from './processTree.ts';
import { requestOnNewConnection } from './spawnApiProcess.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

let database: TestDatabase;
let redisPrefix: string;

test.before(async () => {
  database = await createTestDatabase();
  redisPrefix = createRedisPrefix();
});

test.after.always(async () => {
  await database?.drop();
  if (redisPrefix !== undefined) {
    await deleteRedisPrefix(redisPrefix);
  }
});

const serviceEnv = (port: number): Record<string, string> => ({
  PATH: process.env.PATH ?? '',
  NODE_ENV: 'test',
  LOG_LEVEL: 'info',
  ...testRedisEnv(),
  DATABASE_URL: database.url,
  REDIS_PREFIX: redisPrefix,
  PORT: String(port),
  API_PROCESSES: '2',
  WORKER_PROCESSES: '1',
  WORKER_THREADS: '1',
});

interface NpmStart {
  readonly child: ChildProcess;
  readonly output: () => string;
  readonly tree: readonly number[];
}

/** `npm start` as a user types it, its output read until both API processes listen and the worker is ready. */
const npmStart = async (t: ExecutionContext, port: number): Promise<NpmStart> => {
  const child = spawn('npm', ['start'], { cwd: ROOT, env: serviceEnv(port), stdio: ['ignore', 'pipe', 'pipe'] });
  const chunks: string[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
  const output = (): string => chunks.join('');
  await eventually(() => ((output().match(/"msg":"api listening"/g) ?? []).length === 2 && output().includes('"msg":"worker ready"') ? true : undefined), 60_000);
  // npm, its shell (if it keeps one), the supervisor, two API processes and the worker.
  const tree = descendantsOf(child.pid ?? -1);
  t.teardown(() => {
    // Whatever a failing test left behind, so that nothing outlives the file.
    for (const pid of [...tree, child.pid ?? -1].filter(isRunning)) {
      process.kill(pid, 'SIGKILL');
    }
  });
  return { child, output, tree };
};

for (const signal of ['SIGKILL', 'SIGTERM'] as const) {
  test.serial(`${signal} to the npm start PID stops every process of the service within 10 s`, async (t) => {
    const port = await freePort();
    const service = await npmStart(t, port);
    const npmPid = service.child.pid ?? -1;
    t.is((await requestOnNewConnection(`http://127.0.0.1:${port}/ready`)).status, 200);
    const { tree } = service;
    t.true(tree.length >= 4, `the service runs ${tree.length} processes under npm`);

    process.kill(npmPid, signal);
    await eventually(() => (tree.every((pid) => !isRunning(pid)) ? true : undefined), 10_000).catch(() => {
      t.fail(`still running 10 s after ${signal}: ${tree.filter(isRunning).join(', ')}\n${service.output().slice(-3000)}`);
    });
    // Nothing listens any more: a connection is refused.
    await t.throwsAsync(requestOnNewConnection(`http://127.0.0.1:${port}/health`));
    // A stop, not a crash: the supervisor says it stopped, and no process exit is logged as an error
    // (whichever of the supervisor and its children noticed npm gone first).
    const output = await eventually(() => (service.output().includes('"msg":"all processes stopped"') ? service.output() : undefined));
    t.notRegex(output, /"level":50/, output.slice(-3000));
  });
}

test.serial('a second start on a taken port exits non-zero with one sentence and leaves the first service alone', async (t) => {
  const port = await freePort();
  const first: ServiceProcess = await spawnService({
    script: 'scripts/start.ts',
    env: serviceEnv(port),
    readyLine: '"msg":"worker ready"',
    url: `http://127.0.0.1:${port}`,
    timeoutMs: 60_000,
  });
  t.teardown(() => first.stop(10_000));
  await eventually(() => ((first.output().match(/"msg":"api listening"/g) ?? []).length === 2 ? true : undefined), 30_000);

  for (const script of ['scripts/start.ts', 'api/server.ts']) {
    const second = spawn(process.execPath, [path.join(ROOT, script)], { cwd: ROOT, env: serviceEnv(port), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    second.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    second.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => second.once('exit', resolve));
    t.not(code, 0, script);
    const lines = stderr.trim().split('\n');
    t.is(lines.length, 1, `${script}: ${stderr}`);
    t.is(lines[0], `Port ${port} is already in use (another instance of this service, or another program): stop it, or set PORT to a free port.`, script);
    t.false(stdout.includes('"msg":"api listening"'), `${script} never listened`);
  }
  // The first service still answers every new connection.
  for (let index = 0; index < 10; index += 1) {
    t.is((await requestOnNewConnection(`http://127.0.0.1:${port}/ready`)).status, 200);
  }
});
