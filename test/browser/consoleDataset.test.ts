import path from 'node:path';
import { readFile } from 'node:fs/promises';
import anyTest, { type TestFn } from 'ava';
import { findAccountsByEmail } from '../../shared/db/queries/accounts.ts';
import { buildApiKey } from '../helpers/factories.ts';
import { readArchive } from '../datasets/readArchive.ts';
import { apiWithKey, type ConsoleContext, goTo, openPage, policyViolations, shoot, signIn, useConsoleStack } from './consolePage.ts';

const test = anyTest as TestFn<ConsoleContext>;
useConsoleStack(test, 'console-dataset');

test.serial('"Benchmark dataset" on a run with a scenario downloads its TimeEval zip; a run without one offers none', async (t) => {
  const { stack } = t.context;
  const { page, problems } = await openPage(t);
  await signIn(t, page, { subject: '7301', email: 'mary@example.test', name: 'Mary Jackson' });
  const [account] = await findAccountsByEmail(stack.app.services.pool, 'mary@example.test');
  const { key } = await buildApiKey(stack.app.services.pool, account!.id);
  type Result = { simulation_id: string; scenario: { placed: unknown[] } | null };
  const post = async (body: unknown): Promise<Result> => (await (await apiWithKey(t, key, '/v1/simulations', { method: 'POST', body: JSON.stringify(body) })).json()) as Result;
  const plain = await post({ preset: 'education', num_interactions: 120, seed: 5 });
  const run = await post({
    preset: 'healthcare',
    num_interactions: 400,
    seed: 6,
    scenario: { random: { types: ['hypoxia'], per_sequence: 1, duration: [5, 10], intensity: [1, 2] } },
  });
  await page.reload();
  await goTo(page, 'History');

  const row = page.locator(`#history-body tr[data-simulation-id="${run.simulation_id}"]`);
  await row.waitFor();
  await row.locator('.scenario-mark', { hasText: 'with hypoxia' }).waitFor();
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    row.getByRole('button', { name: /^Download the .* as benchmark dataset$/ }).click(),
  ]);
  t.is(download.suggestedFilename(), 'dataset-healthcare-stable_outpatient-seed6-n400-timeeval.zip');
  const saved = path.join(t.context.shots, 'dataset.zip');
  await download.saveAs(saved);
  await page.locator('#page-status', { hasText: 'Benchmark dataset download ready.' }).waitFor();
  const archive = await readArchive(await readFile(saved));
  t.teardown(() => archive.remove());
  t.deepEqual((await archive.json<{ placed: unknown }>('manifest.json')).placed, run.scenario?.placed);
  t.true(archive.entries.includes('datasets.json'));
  await shoot(t, page, '01-dataset-downloaded');

  const plainRow = page.locator(`#history-body tr[data-simulation-id="${plain.simulation_id}"]`);
  t.is(await plainRow.getByRole('button', { name: /as benchmark dataset$/ }).count(), 0);
  t.is(await plainRow.getByRole('button', { name: /^Download the .* as CSV$/ }).count(), 1);
  t.deepEqual(policyViolations(problems), []);
});
