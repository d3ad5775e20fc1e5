import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { startTcpProxy, type TcpProxy } from '../helpers/startTcpProxy.ts';
import type { TestApp } from '../helpers/startTestApp.ts';
import { useFileStack } from '../helpers/useFileStack.ts';
import { runCli } from './spawnCli.ts';

let app: TestApp;
let proxy: TcpProxy | undefined;
useFileStack(test, (started) => {
  app = started;
});
test.after.always(async () => {
  await proxy?.close();
});

const proKey = async (): Promise<string> => {
  const account = await buildAccount(app.services.pool, { plan: 'pro' });
  return (await buildApiKey(app.services.pool, account.id)).key;
};

test('bss download resumes a download cut twice and writes the run byte for byte; bss link prints a URL that serves it', async (t) => {
  proxy = await startTcpProxy(Number(new URL(app.url).port), { cutAnswers: { afterBytes: 150_000, maxCuts: 2, pathPattern: /\/records$/ } });
  const key = await proKey();
  const first = await runCli(['simulate', '--preset', 'finance', '-n', '8000', '--seed', '3', '--format', 'ndjson'], { url: app.url, key });
  t.is(first.code, 0, first.stderr);
  const history = await runCli(['history', '--json', '--limit', '1'], { url: app.url, key });
  const id = JSON.parse(history.stdout.toString()).data[0].simulation_id as string;

  const directory = await mkdtemp(join(tmpdir(), 'bss-download-'));
  const out = join(directory, 'run.ndjson');
  const download = await runCli(['download', id, '--format', 'ndjson', '--out', out], { url: proxy.url, key });
  t.is(download.code, 0, download.stderr);
  t.is(proxy.cuts(), 2);
  t.regex(download.stderr, /resumed 2 times after a cut connection/);
  t.true((await readFile(out)).equals(first.stdout), 'the file is the first answer, byte for byte');
  t.deepEqual(await readdir(directory), ['run.ndjson'], 'no partial file left behind');

  const link = await runCli(['link', id, '--format', 'ndjson', '--expires-in', '600'], { url: app.url, key });
  t.is(link.code, 0, link.stderr);
  const url = link.stdout.toString().trim();
  t.regex(url, /\/v1\/downloads\/[A-Za-z0-9_-]{43}$/);
  const served = await fetch(`${app.url}${new URL(url).pathname}`);
  t.true(Buffer.from(await served.arrayBuffer()).equals(first.stdout));
});

test('bss link refuses a bad format or expiry as a malformed command line (exit 2), and an unknown run with the API code (exit 1)', async (t) => {
  const key = await proKey();
  t.is((await runCli(['link', '00000000-0000-4000-8000-000000000000', '--format', 'xml'], { url: app.url, key })).code, 2);
  t.is((await runCli(['link', '00000000-0000-4000-8000-000000000000', '--format', 'csv', '--expires-in', '30'], { url: app.url, key })).code, 2);
  const unknown = await runCli(['link', '00000000-0000-4000-8000-000000000000', '--format', 'csv'], { url: app.url, key });
  t.is(unknown.code, 1);
  t.regex(unknown.stderr, /simulation_not_found/);
});
