import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// A port nothing listens on: what a fresh machine without the service looks like.
const CLOSED = 'postgres://postgres@127.0.0.1:9/behavioral_sim';

const runScript = (script: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, script)], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', NODE_ENV: 'development', LOG_LEVEL: 'silent', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });

for (const script of ['scripts/start.ts', 'scripts/migrate.ts']) {
  test(`${script} stops at once with one sentence naming PostgreSQL when it is not reachable, never a stack trace`, async (t) => {
    const result = await runScript(script, { DATABASE_URL: CLOSED, REDIS_URL: 'redis://127.0.0.1:6379' });
    // "At once": one attempt and one sentence, no retry loop (a hang would time the test out).
    t.is(result.code, 1);
    const lines = result.stderr.trim().split('\n');
    t.is(lines.length, 1, result.stderr);
    t.regex(lines[0] ?? '', /^PostgreSQL is not reachable at postgres:\/\/postgres@127\.0\.0\.1:9\/behavioral_sim: start it .* or point DATABASE_URL at one\.$/);
    t.notRegex(result.stderr, /^\s+at /m);
  });
}

test('scripts/start.ts stops at once with one sentence naming Redis when it is not reachable', async (t) => {
  const result = await runScript('scripts/start.ts', { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres', REDIS_URL: 'redis://127.0.0.1:9' });
  t.is(result.code, 1);
  const lines = result.stderr.trim().split('\n');
  t.is(lines.length, 1, result.stderr);
  t.regex(lines[0] ?? '', /^Redis is not reachable at redis:\/\/127\.0\.0\.1:9: start it .* or point REDIS_URL at one\.$/);
});

test('an invalid configuration lists every problem and exits before touching anything', async (t) => {
  const result = await runScript('scripts/start.ts', { PORT: 'eighty', SIMULATION_TIMEOUT_MS: 'soon' });
  t.is(result.code, 1);
  t.regex(result.stderr, /^Invalid configuration:/);
  t.regex(result.stderr, /PORT/);
  t.regex(result.stderr, /SIMULATION_TIMEOUT_MS/);
  t.notRegex(result.stderr, /^\s+at /m);
});
