import anyTest, { type TestFn } from 'ava';
import { findAccountsByEmail } from '../../shared/db/queries/accounts.ts';
import { insertLedgerRow } from '../history/historyFixtures.ts';
import { type ConsoleContext, goTo, openPage, type PageWindow, policyViolations, shoot, signIn, useConsoleStack } from './consolePage.ts';

const test = anyTest as TestFn<ConsoleContext>;
useConsoleStack(test, 'console-links');

test.serial('"Copy link" on a completed run puts a download link on the clipboard that serves the run as Parquet with no credentials', async (t) => {
  const { stack } = t.context;
  const { context, page, problems } = await openPage(t);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.url });
  await signIn(t, page, { subject: '7101', email: 'grace@example.test', name: 'Grace Hopper' });

  await goTo(page, 'Run');
  await page.locator('#simulate').getByLabel('Seed').fill('77');
  await page.locator('#simulate').getByLabel('Number of interactions').fill('150');
  await page.getByRole('button', { name: 'Run simulation' }).click();
  await page.locator('#sim-figure[data-points="150"]').waitFor({ timeout: 30_000 });
  await goTo(page, 'History');
  const row = page.locator('#history-body tr:first-child', { hasText: /77.*150.*Completed/ });
  await row.waitFor();
  const simulationId = await row.getAttribute('data-simulation-id');

  await row.getByRole('button', { name: /^Copy a download link to the / }).click();
  await page.locator('#page-status', { hasText: /^Download link copied to the clipboard; it serves the run as Parquet until / }).waitFor();
  const url = await page.evaluate(() => (globalThis as unknown as PageWindow).navigator.clipboard.readText());
  t.regex(url, new RegExp(`^${stack.url}/v1/downloads/[A-Za-z0-9_-]{43}$`));
  await shoot(t, page, '01-link-copied');

  // The link works on its own: no cookie, no key, as pandas or DuckDB would read it.
  const served = await fetch(url);
  t.is(served.status, 200);
  t.is(served.headers.get('content-type'), 'application/vnd.apache.parquet');
  t.is(served.headers.get('simulation-id'), simulationId);
  const bytes = Buffer.from(await served.arrayBuffer());
  t.is(bytes.subarray(0, 4).toString(), 'PAR1');
  t.is(bytes.subarray(-4).toString(), 'PAR1');
  t.deepEqual(policyViolations(problems), []);
});

test.serial('a run that did not complete offers no "Copy link"', async (t) => {
  const { page } = await openPage(t);
  await signIn(t, page, { subject: '7102', email: 'katherine@example.test', name: 'Katherine Johnson' });
  const [account] = await findAccountsByEmail(t.context.stack.app.services.pool, 'katherine@example.test');
  await insertLedgerRow(t.context.stack.app.services.pool, account!.id, { status: 'failed' });
  await insertLedgerRow(t.context.stack.app.services.pool, account!.id, { status: 'completed', createdAt: '2026-01-01T09:00:00Z' });
  await page.goto(`${t.context.stack.url}/account/history`);
  const failed = page.locator('#history-body tr', { hasText: 'Failed' });
  await failed.waitFor();
  t.is(await failed.getByRole('button', { name: /^Run the / }).count(), 1);
  t.is(await failed.getByRole('button', { name: /^Copy a download link/ }).count(), 0);
  t.is(await page.locator('#history-body tr', { hasText: 'Completed' }).getByRole('button', { name: /^Copy a download link/ }).count(), 1);
});
