import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import type { TestApp } from '../helpers/startTestApp.ts';
import { useFileStack } from '../helpers/useFileStack.ts';
import { createPythonEnvironment, type PythonEnvironment, run } from '../python/pythonEnvironment.ts';

// docs/datasets.md's walkthrough, run as written: its Python blocks in order, against the real service,
// with the Python client installed into a fresh virtual environment of Debian's python3 (with pandas). The
// service is deterministic, so the figures the page shows are the figures the walkthrough prints.
const PAGE = fileURLToPath(new URL('../../docs/datasets.md', import.meta.url));

let app: TestApp;
let python: PythonEnvironment | undefined;

useFileStack(test, async (started) => {
  app = started;
  python = await createPythonEnvironment();
});

test.after.always(async () => {
  await python?.remove();
});

const blocks = (page: string, language: string): string[] => [...page.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((match) => match[1]!);

test('docs/datasets.md: the walkthrough runs from top to bottom and prints the figures the page shows', async (t) => {
  t.timeout(600_000);
  if (python === undefined) throw new Error('no Python environment');
  t.is(python.install.code, 0, python.install.output);
  const page = await readFile(PAGE, 'utf8');
  const code = blocks(page, 'python').join('\n');
  const shown = page.slice(page.indexOf('<!-- walkthrough output -->')).match(/```text\n([\s\S]*?)```/)?.[1];
  t.truthy(shown, 'the page shows the output after <!-- walkthrough output -->');
  const directory = await mkdtemp(path.join(tmpdir(), 'bss-walkthrough-'));
  t.teardown(() => rm(directory, { recursive: true, force: true }));
  await writeFile(path.join(directory, 'walkthrough.py'), code);
  const account = await buildAccount(app.services.pool, { plan: 'pro' });
  const key = (await buildApiKey(app.services.pool, account.id)).key;
  const result = await run(python.python, ['walkthrough.py'], { cwd: directory, env: { BSS_API_URL: app.url, BSS_API_KEY: key } });
  t.is(result.code, 0, result.output);
  t.is(result.output.trim(), (shown ?? '').trim(), result.output);
});
