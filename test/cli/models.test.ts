import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import test from 'ava';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import type { TestApp } from '../helpers/startTestApp.ts';
import { useFileStack } from '../helpers/useFileStack.ts';
import { tinyModel } from '../models/modelFixtures.ts';
import { ROOT, runCli } from './spawnCli.ts';

let app: TestApp;
useFileStack(test, (started) => {
  app = started;
});

const caller = async () => {
  const account = await buildAccount(app.services.pool, { plan: 'pro' });
  return { url: app.url, key: (await buildApiKey(app.services.pool, account.id)).key };
};

const definitionFile = async (name: string, definition: unknown): Promise<string> => {
  const file = join(tmpdir(), `bss-cli-${randomBytes(6).toString('hex')}-${name}.json`);
  await writeFile(file, JSON.stringify(definition));
  return file;
};

test('models put, list, get, validate and delete, and simulate --model, against the API', async (t) => {
  const target = await caller();
  const file = await definitionFile('members', tinyModel());
  const put = await runCli(['models', 'put', file, '--name', 'members'], target);
  t.is(put.code, 0, put.stderr);
  t.regex(put.stdout.toString('utf8'), /version\s+1/);
  const gallery = await runCli(['models', 'put', `${ROOT}docs/models/card_payments.json`], target);
  t.is(gallery.code, 0, gallery.stderr);
  t.regex(gallery.stdout.toString('utf8'), /name\s+card_payments/);

  const list = await runCli(['models', 'list', '--json'], target);
  t.is(list.code, 0, list.stderr);
  t.deepEqual(
    (JSON.parse(list.stdout.toString('utf8')) as { name: string }[]).map((model) => model.name).sort(),
    ['card_payments', 'members'],
  );
  const get = await runCli(['models', 'get', 'members@1', '--json'], target);
  t.is(get.code, 0, get.stderr);
  t.like(JSON.parse(get.stdout.toString('utf8')), { name: 'members', version: 1 });

  const valid = await runCli(['models', 'validate', file], target);
  t.is(valid.code, 0, valid.stderr);
  t.regex(valid.stdout.toString('utf8'), /valid/);
  const broken = await runCli(['models', 'validate', await definitionFile('broken', tinyModel({ initial: 'Actve' }))], target);
  t.is(broken.code, 1);
  t.regex(broken.stderr, /error: initial: .*Actve/);

  const run = await runCli(['simulate', '--model', 'members', '-n', '25', '--seed', '3', '--format', 'ndjson'], target);
  t.is(run.code, 0, run.stderr);
  t.is(run.stdout.toString('utf8').trim().split('\n').length, 25);
  const both = await runCli(['simulate', '--model', 'members', '--preset', 'finance', '-n', '5'], target);
  t.is(both.code, 2);

  const deleted = await runCli(['models', 'delete', 'members'], target);
  t.is(deleted.code, 0, deleted.stderr);
  const gone = await runCli(['simulate', '--model', 'members', '-n', '5'], target);
  t.is(gone.code, 1);
  t.regex(gone.stderr, /model_not_found/);
});
