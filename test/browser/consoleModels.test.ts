import { readFile } from 'node:fs/promises';
import anyTest, { type TestFn } from 'ava';
import type { Page } from 'playwright-core';
import { findAccountsByEmail, updateAccountPlan } from '../../shared/db/queries/accounts.ts';
import { type ConsoleContext, fitsWidth, goTo, openPage, type PageWindow, policyViolations, shoot, shootPart, signIn, useConsoleStack } from './consolePage.ts';

// The Models page (issue 38): a gallery model in the editor, checked as one types with each problem on its
// line, the state graph drawn from the definition, the validation sample, versions compared, and "Run"
// taking the model to the Run page.

const test = anyTest as TestFn<ConsoleContext>;
useConsoleStack(test, 'console-models');

const GALLERY = new URL('../../docs/models/checkout_funnel.json', import.meta.url);

/** The 1-based line of the first line of `text` that contains `needle`. */
const lineOf = (text: string, needle: string) => text.split('\n').findIndex((line) => line.includes(needle)) + 1;

const caretLine = (page: Page) =>
  page.evaluate(() => {
    const { document } = globalThis as unknown as PageWindow & { document: { activeElement: { id: string; value: string; selectionStart: number } | null } };
    const field = document.activeElement;
    return field === null ? -1 : field.value.slice(0, field.selectionStart).split('\n').length;
  });

test.serial('a gallery model: checked as typed with problems on their lines, its graph, its sample, two versions compared, then run', async (t) => {
  const { stack } = t.context;
  const { page, problems } = await openPage(t);
  await signIn(t, page, { subject: '7401', email: 'margaret@example.test', name: 'Margaret Hamilton' });
  // Validation counts in the plan's minute like a run: the Pro plan's minute leaves room for typing.
  const [account] = await findAccountsByEmail(stack.app.services.pool, 'margaret@example.test');
  await updateAccountPlan(stack.app.services.pool, { id: account?.id ?? '', plan: 'pro' });
  await page.goto(`${stack.url}/account/models`);
  await page.locator('#models-body', { hasText: 'No models yet' }).waitFor();

  // 1. From the gallery: the definition as the file holds it, valid, its graph and its sample drawn.
  const source = await readFile(GALLERY, 'utf8');
  await page.getByLabel('Start from the gallery').selectOption('checkout_funnel');
  await page.locator('#model-status[data-valid="true"]').waitFor({ timeout: 30_000 });
  t.is(await page.getByLabel('Model definition (JSON)').inputValue(), source);
  t.is(await page.getByLabel('Name', { exact: true }).inputValue(), 'checkout_funnel');
  t.regex((await page.locator('#model-status').textContent()) ?? '', /^Valid, with \d+ warnings?\.$/);
  await page.locator('#model-graph[data-states="5"]').waitFor();
  t.is(await page.locator('#model-graph').getAttribute('data-transitions'), '6');
  t.deepEqual(await page.locator('#model-graph .graph-node.is-terminal').evaluateAll((nodes) => nodes.map((node) => (node as unknown as { getAttribute(name: string): string }).getAttribute('data-state')).sort()), ['Abandoned', 'Purchased']);
  t.is(await page.locator('#model-graph .graph-node.is-initial').getAttribute('data-state'), 'Browse');
  t.is(await page.locator('#model-graph .graph-edge[data-from="Browse"][data-to="Cart"] text').textContent(), 'add_to_cart = 0.03');
  t.true((await page.locator('#model-graph-words li').allTextContents()).includes('Browse (initial): moves to Cart (add_to_cart = 0.03), Abandoned (browse_exit = 0.3).'));
  await shootPart(t, page, '#model-graph-card', 'graph');
  await page.locator('#model-sample-figure[data-points="20"]').waitFor({ timeout: 30_000 });
  t.is(await page.locator('#model-sample-body tr').count(), 20);
  t.true((await page.locator('#model-states-body th').allTextContents()).includes('Browse'));

  // 2. A typo: the problem is listed at its line and column, the gutter marks the line, and the listed
  // place takes the caret there.
  const typo = source.replace('"Cart": "add_to_cart"', '"Cart": "add_to_crt"');
  const typoLine = lineOf(typo, 'add_to_crt');
  const typoColumn = (typo.split('\n')[typoLine - 1] ?? '').indexOf('add_to_crt') + 1;
  await page.getByLabel('Model definition (JSON)').fill(typo);
  const issue = page.locator(`#model-issues li.model-issue[data-line="${typoLine}"]`);
  await issue.waitFor({ timeout: 30_000 });
  t.regex((await issue.textContent()) ?? '', /unknown name 'add_to_crt' \(did you mean 'add_to_cart'\?\)/);
  t.regex((await issue.textContent()) ?? '', new RegExp(`^Line ${typoLine}:${typoColumn}\\b`));
  t.is(await page.locator('#model-gutter span').nth(typoLine - 1).getAttribute('class'), 'gutter-issue');
  t.is(await page.getByLabel('Model definition (JSON)').getAttribute('aria-invalid'), 'true');
  await shootPart(t, page, '#model-editor-card', 'editor-problem');
  await issue.getByRole('button').click();
  t.is(await caretLine(page), typoLine, 'the caret is on the line of the problem');

  // 3. Saved as version 1, changed and saved as version 2: the versions compared line by line.
  await page.getByLabel('Model definition (JSON)').fill(source);
  await page.locator('#model-status[data-valid="true"]').waitFor({ timeout: 30_000 });
  await page.getByRole('button', { name: 'Save a version' }).click();
  await page.locator('#model-save-status', { hasText: 'Saved as checkout_funnel, version 1.' }).waitFor();
  await page.locator('#models-body tr[data-model="checkout_funnel"]').waitFor();
  await page.getByLabel('Model definition (JSON)').fill(source.replace('"max_steps": 60', '"max_steps": 80'));
  await page.getByRole('button', { name: 'Save a version' }).click();
  await page.locator('#model-save-status', { hasText: 'Saved as checkout_funnel, version 2.' }).waitFor();
  await page.locator('#model-diff-summary', { hasText: 'From version 1 to 2: 1 line added, 1 line removed.' }).waitFor();
  t.deepEqual(await page.locator('#model-diff li.diff-removed .diff-text').allTextContents(), ['  "max_steps": 60,']);
  t.deepEqual(await page.locator('#model-diff li.diff-added .diff-text').allTextContents(), ['  "max_steps": 80,']);
  t.regex((await page.locator('#models-body tr[data-model="checkout_funnel"]').textContent()) ?? '', /checkout_funnel\s*2/);
  await shoot(t, page, 'models-1280');

  // 4. "Run it": the Run page with the model chosen, and a run of it.
  await page.getByRole('button', { name: 'Run it' }).click();
  await page.waitForURL(`${stack.url}/account/run?model=checkout_funnel`);
  t.is(await page.locator('#simulate').getByLabel('Preset').inputValue(), 'model:checkout_funnel');
  t.deepEqual(await page.locator('#simulate').getByLabel('Profile').locator('option').allTextContents(), ['Baymard 2024', 'Mobile heavy']);
  await page.locator('#simulate').getByLabel('Seed').fill('42');
  await page.locator('#simulate').getByLabel('Number of interactions').fill('300');
  await page.getByRole('button', { name: 'Run simulation' }).click();
  await page.locator('#sim-figure[data-points="300"]').waitFor({ timeout: 30_000 });
  t.regex((await page.locator('#sim-repro').textContent()) ?? '', /^Reproducible: model checkout_funnel@2, profile baymard_2024, seed 42, engine /);
  t.false(await page.locator('#sim-fidelity').isVisible(), 'a model has no published facts');

  // On a phone, the Models page fits.
  await page.setViewportSize({ width: 390, height: 844 });
  await goTo(page, 'Models');
  t.true(await fitsWidth(page), 'no sideways scrolling at 390 px');
  await shoot(t, page, 'models-390');
  t.deepEqual(policyViolations(problems), []);
  t.deepEqual(problems, []);
});
