import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import type { TestApp } from '../helpers/startTestApp.ts';
import { useFileStack } from '../helpers/useFileStack.ts';
import { readParquet } from '../parquet/readParquet.ts';
import { cliEnv, ROOT, runCli, shellLine } from './spawnCli.ts';

let app: TestApp;
useFileStack(test, (started) => {
  app = started;
});

const enterpriseCaller = async () => {
  const account = await buildAccount(app.services.pool, { plan: 'enterprise' });
  return { url: app.url, key: (await buildApiKey(app.services.pool, account.id)).key };
};

const tempFile = (name: string) => join(tmpdir(), `bss-cli-${randomBytes(6).toString('hex')}-${name}`);

const LONG_RUN = 20_000;

test('under a terminal, a long run draws a progress bar on stderr that ends at 100 % with every record', async (t) => {
  const target = await enterpriseCaller();
  const file = tempFile('long.json');
  // `script` gives the CLI a pseudo-terminal; its transcript is what the terminal showed.
  const command = shellLine(['npm', 'run', '--silent', 'cli', '--', 'simulate', '--preset', 'finance', '--seed', '3', '-n', String(LONG_RUN), '--out', file]);
  const transcript = await new Promise<{ code: number; output: string }>((resolve) => {
    execFile('script', ['-qfec', command, '/dev/null'], { cwd: ROOT, env: cliEnv(target), timeout: 90_000 }, (error, stdout) =>
      resolve({ code: error === null ? 0 : Number(error.code), output: stdout }),
    );
  });
  t.is(transcript.code, 0, transcript.output);
  t.regex(transcript.output, new RegExp(`100% \\| ${LONG_RUN}/${LONG_RUN} records \\| [\\d.]+ (KiB|MiB) \\| \\d+ records/s \\| ETA `));
  // The bar was redrawn in place: cursor control, which only a terminal gets.
  t.true(transcript.output.includes('\u001b['));
  t.regex(transcript.output, new RegExp(`${LONG_RUN} records, \\d+ bytes written to `));
  const written = JSON.parse(await readFile(file, 'utf8')) as { data: unknown[] };
  t.is(written.data.length, LONG_RUN);
});

test('when stderr is not a terminal, a long run writes nothing at all on it: no bar, no escape codes', async (t) => {
  const target = await enterpriseCaller();
  const file = tempFile('quiet.json');
  const run = await runCli(['simulate', '--preset', 'finance', '-n', String(LONG_RUN), '--out', file], target);
  t.is(run.code, 0, run.stderr);
  t.is(run.stderr, '');
  t.is(run.stdout.length, 0);
  t.is((JSON.parse(await readFile(file, 'utf8')) as { data: unknown[] }).data.length, LONG_RUN);
});

test('--no-progress keeps even a terminal free of the bar', async (t) => {
  const target = await enterpriseCaller();
  const file = tempFile('nobar.json');
  const command = shellLine(['npm', 'run', '--silent', 'cli', '--', 'simulate', '--preset', 'finance', '-n', String(LONG_RUN), '--out', file, '--no-progress']);
  const output = await new Promise<string>((resolve, reject) => {
    execFile('script', ['-qfec', command, '/dev/null'], { cwd: ROOT, env: cliEnv(target), timeout: 90_000 }, (error, stdout) =>
      error === null ? resolve(stdout) : reject(new Error('the CLI under script failed', { cause: error })),
    );
  });
  t.false(output.includes('records/s'));
  t.false(output.includes('\u001b'));
  t.regex(output, new RegExp(`${LONG_RUN} records, \\d+ bytes written to `));
});

test('a Parquet run under a terminal draws the bar by bytes and ends it at 100 % with every record', async (t) => {
  const target = await enterpriseCaller();
  const file = tempFile('long.parquet');
  const command = shellLine(['npm', 'run', '--silent', 'cli', '--', 'simulate', '--preset', 'finance', '--seed', '3', '-n', String(LONG_RUN), '--format', 'parquet', '--out', file]);
  const transcript = await new Promise<{ code: number; output: string }>((resolve) => {
    execFile('script', ['-qfec', command, '/dev/null'], { cwd: ROOT, env: cliEnv(target), timeout: 90_000 }, (error, stdout) =>
      resolve({ code: error === null ? 0 : Number(error.code), output: stdout }),
    );
  });
  t.is(transcript.code, 0, transcript.output);
  // A Parquet file counts its rows in its footer, its last bytes: the bar completes once the body is whole.
  t.regex(transcript.output, new RegExp(`100% \\| ${LONG_RUN}/${LONG_RUN} records \\| [\\d.]+ (KiB|MiB) \\| \\d+ records/s \\| ETA `));
  const written = await readParquet(await readFile(file));
  t.is(written.records.length, LONG_RUN);
});
