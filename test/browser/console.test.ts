import { readFile } from 'node:fs/promises';
import path from 'node:path';
import anyTest, { type TestFn } from 'ava';
import { findAccountsByEmail } from '../../shared/db/queries/accounts.ts';
import { generateRecords } from '../../shared/engine/index.ts';
import { buildApiKey } from '../helpers/factories.ts';
import { insertLedgerRow } from '../history/historyFixtures.ts';
import { apiWithKey, type ConsoleContext, countPixelsNear, fitsWidth, goTo, openPage, type PageWindow, policyViolations, shoot, signIn, useConsoleStack } from './consolePage.ts';

const test = anyTest as TestFn<ConsoleContext>;
useConsoleStack(test, 'console');

test.serial('a person signs in, reads a new key once, charts a finance run, downloads it as CSV, revokes the key and signs out', async (t) => {
  const { stack } = t.context;
  const { context, page, problems } = await openPage(t);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.url });

  // 1. Landing page, then sign-in through the local identity provider.
  await page.goto(`${stack.url}/`);
  t.true(await page.getByRole('link', { name: 'Sign in with Google' }).isVisible());
  await shoot(t, page, '01-landing');
  await signIn(t, page, { subject: '7001', email: 'ada@example.test', name: 'Ada Lovelace' });

  // 2. The account and this month's usage.
  t.is(await page.locator('#account-email').textContent(), 'ada@example.test');
  t.is(await page.locator('#account-name').textContent(), 'Ada Lovelace');
  t.is(await page.locator('#account-plan').textContent(), 'Free');
  t.is(await page.locator('#account-providers').textContent(), 'GitHub');
  await page.locator('#usage-requests').waitFor();
  t.is(await page.locator('#usage-requests').getAttribute('aria-valuetext'), '0 of 100 requests used, 100 remaining');
  t.regex((await page.locator('#usage-reset').textContent()) ?? '', /^Resets on .+ UTC\.$/);
  await shoot(t, page, '02-account');

  // 3. A key is created and shown once, with a working copy button.
  await goTo(page, 'Keys');
  await page.getByLabel('Key name').fill('laptop');
  await page.getByRole('button', { name: 'Create key' }).click();
  const keyField = page.getByLabel('New API key');
  await keyField.waitFor();
  const key = await keyField.inputValue();
  t.regex(key, /^bs_live_[A-Za-z0-9]{32}$/);
  const warning = page.locator('#new-key-warning');
  t.true(await warning.isVisible());
  t.regex((await warning.textContent()) ?? '', /it will not be shown again/);
  await page.getByRole('button', { name: 'Copy', exact: true }).click();
  await page.getByText('Copied to the clipboard.').waitFor();
  t.is(await page.evaluate(() => (globalThis as unknown as PageWindow).navigator.clipboard.readText()), key);
  await shoot(t, page, '03-key-created');
  t.is((await apiWithKey(t, key, '/v1/account')).status, 200, 'the key shown is the real secret');
  await page.getByRole('button', { name: 'I have saved it' }).click();
  const row = page.locator('#keys-body tr', { hasText: 'laptop' });
  t.true((await row.textContent())?.includes(key.slice(0, 12)));
  // Once dismissed, the secret is nowhere in the page, not even after a reload.
  for (const attempt of ['dismissed', 'reloaded']) {
    if (attempt === 'reloaded') {
      await page.reload();
      await row.waitFor();
    }
    const html = await page.evaluate(() => {
      const { document } = globalThis as unknown as PageWindow;
      return document.documentElement.outerHTML + [...document.querySelectorAll('input')].map((input) => input.value).join(' ');
    });
    t.false(html.includes(key), attempt);
  }

  // 4. A finance simulation, drawn as a chart with its table and reproducibility line.
  await goTo(page, 'Run');
  await page.locator('#simulate').getByLabel('Preset').selectOption('finance');
  await page.locator('#simulate').getByLabel('Profile').selectOption('growth_investor');
  await page.locator('#simulate').getByLabel('Seed').fill('20240');
  await page.locator('#simulate').getByLabel('Number of interactions').fill('300');
  await page.getByRole('button', { name: 'Run simulation' }).click();
  await page.locator('#sim-figure[data-points="300"]').waitFor({ timeout: 30_000 });
  t.true((await countPixelsNear(page, '#sim-chart canvas', [31, 95, 191])) > 200, 'the portfolio_value line is drawn');
  t.regex((await page.locator('#sim-chart-caption').textContent()) ?? '', /^Portfolio value goes from [\d.,]+ to [\d.,]+/);
  t.regex(
    (await page.locator('#sim-repro').textContent()) ?? '',
    /preset finance, profile growth_investor, seed 20240, engine \d+\.\d+\.\d+/,
  );
  t.is(await page.locator('#sim-table caption').textContent(), 'First 20 of 300 records');
  t.is(await page.locator('#sim-table tbody tr').count(), 20);
  t.deepEqual(await page.locator('#sim-table thead th').allTextContents(), [
    'sequence_id',
    'interaction_id',
    'event_time',
    'state',
    'portfolio_value',
    'daily_return',
    'risk_alert',
    'scenario_event',
  ]);
  t.true((await page.locator('#sim-legend li').count()) >= 1);
  // Next to the chart: the stylized facts finance data is measured to hold for this profile (issue 16).
  // The facts of the run's own engine, as published: engine 4's clock facts, engine 3's calibrated and scenario facts beside engine 2's eight.
  const report = (await (await fetch(`${stack.app.url}/v1/presets/finance/fidelity?engine_version=4.0.0`)).json()) as { facts: { profile: string; description: string }[] };
  // One row per quantity measured: two facts about the same one (engine 2's and engine 3's kurtosis) share a row.
  const factCount = new Set(report.facts.filter((fact) => fact.profile === 'growth_investor').map((fact) => fact.description)).size;
  t.true(factCount > 8);
  await page.locator(`#sim-fidelity[data-facts="${factCount}"]`).waitFor({ timeout: 30_000 });
  t.regex((await page.locator('#sim-fidelity caption').textContent()) ?? '', /Finance data is measured to hold \(Growth investor\)/i);
  const facts = page.locator('#sim-fidelity tbody tr');
  t.is(await facts.count(), factCount);
  const lag20 = page.locator('#sim-fidelity tr[data-fact="volatility_clustering_lag_20"]');
  t.deepEqual((await lag20.locator('th, td').allTextContents()).map((text) => text.trim()).filter((_, i) => i !== 2), [
    'Autocorrelation of |daily_return| at lag 20 (slow decay)',
    '≥ 0.05',
    'Yes',
  ]);
  t.deepEqual([...new Set(await page.locator('#sim-fidelity tbody td:last-child').allTextContents())], ['Yes']);
  t.regex((await page.locator('#sim-fidelity .fidelity-note').textContent()) ?? '', /Measured on 100,000 interactions \(seed \d+\) of engine 4\.0\.0\./);
  await shoot(t, page, '04-simulation');

  // 5. The CSV download holds every record, the same as the API returns for the same inputs.
  // It is the server's CSV: the page asks for the same run with Accept: text/csv.
  const [download, csvRequest] = await Promise.all([
    page.waitForEvent('download'),
    page.waitForRequest((request) => request.url().endsWith('/v1/simulations') && request.headers().accept === 'text/csv'),
    page.getByRole('button', { name: 'Download CSV' }).click(),
  ]);
  // The engine that made the charted run, pinned: a newer default engine would give other records.
  t.is((csvRequest.postDataJSON() as { engine_version?: string }).engine_version, '4.0.0');
  t.is(download.suggestedFilename(), 'simulation-finance-growth_investor-seed20240-n300.csv');
  const csvPath = path.join(t.context.shots, '05-download.csv');
  await download.saveAs(csvPath);
  const lines = (await readFile(csvPath, 'utf8')).trimEnd().split('\r\n');
  const fields = ['sequence_id', 'interaction_id', 'event_time', 'state', 'portfolio_value', 'daily_return', 'risk_alert', 'scenario_event'];
  t.is(lines[0], fields.join(','));
  t.is(lines.length, 301);
  const again = await apiWithKey(t, key, '/v1/simulations', {
    method: 'POST',
    body: JSON.stringify({ preset: 'finance', profile: 'growth_investor', seed: 20240, num_interactions: 300 }),
  });
  t.is(again.status, 200);
  const records = ((await again.json()) as { data: Record<string, string | number | null>[] }).data;
  // A null scenario_event is an empty CSV field.
  t.deepEqual(
    lines.slice(1),
    records.map((record) => fields.map((field) => String(record[field] ?? '')).join(',')),
  );

  // 6. Revoking asks first, in a dialog the keyboard can answer.
  await goTo(page, 'Keys');
  const revoke = page.getByRole('button', { name: 'Revoke key laptop' });
  await revoke.focus();
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog', { name: 'Revoke the key “laptop”?' });
  await dialog.waitFor();
  await shoot(t, page, '06-revoke-dialog');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  const focused = await revoke.evaluate((button) => button === (globalThis as unknown as PageWindow).document.activeElement);
  t.true(focused, 'focus returns to the Revoke button');
  t.is((await apiWithKey(t, key, '/v1/account')).status, 200, 'cancelling keeps the key');
  await page.keyboard.press('Enter');
  await dialog.getByRole('button', { name: 'Revoke key' }).click();
  await row.getByText('Revoked').waitFor();
  t.is((await apiWithKey(t, key, '/v1/account')).status, 401, 'the revoked key no longer authenticates');
  await shoot(t, page, '07-key-revoked');

  // 7. Signing out ends the session: the console sends the browser back to sign in.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(`${stack.url}/`);
  await shoot(t, page, '08-signed-out');
  await page.goto(`${stack.url}/account`);
  await page.waitForURL((url) => url.pathname === '/');
  // The URL changes before the page has drawn its links: wait for the link (it fails the test if it never comes).
  const signInLink = page.getByRole('link', { name: 'Sign in with GitHub' });
  await signInLink.waitFor({ state: 'visible' });
  t.true(await signInLink.isVisible());

  t.deepEqual(policyViolations(problems), []);
  // Only the expected 401 of the signed-out visit may appear in the console.
  t.deepEqual(
    problems.filter((problem) => !problem.includes('status of 401')),
    [],
  );
});

test.serial('a person rolls a key: the new key is shown once and the old one keeps working until the time shown', async (t) => {
  const { page, problems } = await openPage(t);
  await signIn(t, page, { subject: '7010', email: 'katherine@example.test', name: 'Katherine Johnson' });
  await goTo(page, 'Keys');
  await page.getByLabel('Key name').fill('server');
  await page.getByRole('button', { name: 'Create key' }).click();
  const keyField = page.getByLabel('New API key');
  await keyField.waitFor();
  const oldKey = await keyField.inputValue();
  await page.getByRole('button', { name: 'I have saved it' }).click();

  // A free account holds one key, and can still roll it.
  await page.getByRole('button', { name: 'Roll key server' }).click();
  const dialog = page.getByRole('dialog', { name: 'Roll the key “server”?' });
  await dialog.waitFor();
  await dialog.getByLabel('The previous key keeps working for').selectOption('3600');
  await shoot(t, page, '07a-roll-dialog');
  await dialog.getByRole('button', { name: 'Roll key' }).click();
  await dialog.waitFor({ state: 'hidden' });
  const previous = page.locator('#new-key-previous');
  await previous.waitFor();
  t.regex((await previous.textContent()) ?? '', new RegExp(`^The previous key ${oldKey.slice(0, 12)}… keeps working until .+\\.$`));
  const newKey = await keyField.inputValue();
  t.regex(newKey, /^bs_live_[A-Za-z0-9]{32}$/);
  t.not(newKey, oldKey);
  t.regex((await page.locator('#new-key-warning').textContent()) ?? '', /it will not be shown again/);
  const rows = page.locator('#keys-body tr', { hasText: 'server' });
  t.is(await rows.count(), 2);
  const oldRow = page.locator('#keys-body tr', { hasText: oldKey.slice(0, 12) });
  t.regex((await oldRow.textContent()) ?? '', /Active until /);
  t.is(await oldRow.getByRole('button', { name: 'Roll key server' }).count(), 0, 'a rolled key cannot be rolled again');
  await shoot(t, page, '07b-key-rolled');

  t.is((await apiWithKey(t, oldKey, '/v1/account')).status, 200, 'the old key works during its grace period');
  t.is((await apiWithKey(t, newKey, '/v1/account')).status, 200, 'the new key works at once');
  const listed = (await (await apiWithKey(t, newKey, '/v1/api-keys')).json()) as { key_prefix: string; expires_at: string | null }[];
  const expiresAt = listed.find((key) => key.key_prefix === oldKey.slice(0, 12))?.expires_at ?? '';
  const graceMs = Date.parse(expiresAt) - Date.now();
  t.true(graceMs > 3_000_000 && graceMs <= 3_600_000, expiresAt);
  await page.getByRole('button', { name: 'I have saved it' }).click();
  t.true(await previous.isHidden());
  t.deepEqual(problems, []);
});

test.serial('a refused sign-in comes back explained in plain words', async (t) => {
  const { stack } = t.context;
  const { page, problems } = await openPage(t);
  stack.idp.denyNext();
  await page.goto(`${stack.url}/`);
  await page.getByRole('link', { name: 'Sign in with GitHub' }).click();
  await page.waitForURL((url) => url.pathname === '/' && url.search === '');
  const notice = page.getByRole('alert');
  t.regex((await notice.textContent()) ?? '', /Sign-in was cancelled: access was not granted/);
  await shoot(t, page, '09-sign-in-refused');

  await page.goto(`${stack.url}/account?error=something_new`);
  await page.waitForURL((url) => url.pathname === '/');
  t.is(await page.getByRole('alert').textContent(), 'Sign-in did not complete. Please try again, or use the other provider.');
  t.deepEqual(policyViolations(problems), []);
});

test.serial('too many runs say when to retry, and the console fits a phone screen', async (t) => {
  const { page, problems } = await openPage(t, { width: 390, height: 844 });
  await signIn(t, page, { subject: '7002', email: 'grace@example.test', name: 'Grace Hopper' });
  await page.locator('#usage-requests').waitFor();
  t.true(await fitsWidth(page), 'no sideways scrolling at 390 px');

  await goTo(page, 'Run');
  await page.locator('#simulate').getByLabel('Number of interactions').fill('10');
  // The free plan admits 5 runs a minute; the sixth is refused with Retry-After.
  for (let run = 1; run <= 6; run += 1) {
    await page.locator('#simulate').getByLabel('Seed').fill(String(run));
    await page.getByRole('button', { name: 'Run simulation' }).click();
    await page.locator('#sim-run:not([aria-disabled="true"])').waitFor();
  }
  const error = page.locator('#sim-error');
  t.regex((await error.textContent()) ?? '', /^Too many requests: your plan allows 5 requests a minute\. Try again in \d+ (minute|second)s?( \d+ seconds?)?\.$/);
  // Until then the button does not send requests that would only be refused.
  let sent = 0;
  page.on('response', (response) => {
    if (response.url().endsWith('/v1/simulations')) {
      sent += 1;
    }
  });
  await page.getByRole('button', { name: 'Run simulation' }).click();
  t.regex((await error.textContent()) ?? '', /^Your plan's limit is still reached\. Try again in \d+ (minute|second)/);
  t.is(sent, 0);
  t.true(await fitsWidth(page), 'no sideways scrolling with a result shown');
  await shoot(t, page, '10-phone-rate-limited');
  t.deepEqual(policyViolations(problems), []);
});

test.serial('quota and limit errors name what ran out and when it resets', async (t) => {
  const { stack } = t.context;
  const { page } = await openPage(t);
  await page.goto(`${stack.url}/`);
  const assets = await page.evaluate(() => {
    const entry = (globalThis as unknown as PageWindow).document.querySelector('script[type="module"]');
    return entry?.getAttribute('src')?.replace(/\/js\/landing\.js$/, '');
  });
  // The page's own module, run in the page: what a person reads for each error envelope.
  const explain = (status: number, details: Record<string, unknown>, retryAfter: string | null = null) =>
    page.evaluate(
      async ({ assets, status, details, retryAfter }) => {
        const { ApiError } = await import(`${assets}/js/api.js`);
        const { explainApiError } = await import(`${assets}/js/explainError.js`);
        const headers = new Headers(retryAfter === null ? {} : { 'Retry-After': retryAfter });
        return explainApiError(new ApiError(status, { error: { message: 'x', status_code: status, details, request_id: 'req-1' } }, headers));
      },
      { assets, status, details, retryAfter },
    );
  t.is(
    await explain(403, { code: 'monthly_interaction_quota_exceeded', limit: 10000, used: 9800, requested: 500, resets_at: '2026-12-01T00:00:00.000Z' }),
    "This run needs 500 interactions, but only 200 of this month's 10,000 are left. It resets on December 1, 2026, 00:00 UTC. Ask for 200 or fewer, or wait for the reset.",
  );
  t.is(
    await explain(403, { code: 'monthly_request_quota_exceeded', limit: 100, used: 100, resets_at: '2026-12-01T00:00:00.000Z' }),
    'You have used all 100 simulation requests of this month. It resets on December 1, 2026, 00:00 UTC.',
  );
  t.is(
    await explain(403, { code: 'interactions_per_request_exceeded', limit: 1000, requested: 5000 }),
    'Your plan allows at most 1,000 interactions per run; you asked for 5,000.',
  );
  t.is(
    await explain(429, { code: 'concurrency_limit_exceeded', limit: 1, retry_after: 2 }),
    'Your plan runs 1 simulation at a time and the limit is busy. Try again in 2 seconds.',
  );
  t.is(await explain(429, { code: 'rate_limit_exceeded', limit: 5, retry_after: 75 }), 'Too many requests: your plan allows 5 requests a minute. Try again in 1 minute 15 seconds.');
  t.is(
    await explain(503, { code: 'service_unavailable' }, '30'),
    'The service is temporarily unavailable. Try again in 30 seconds. (Request id: req-1.)',
  );
});

test.serial('the run history pages newest first, filters by preset, shows a run again, downloads it from the server and runs it again with a new seed', async (t) => {
  const { stack } = t.context;
  const { page, problems } = await openPage(t);
  await signIn(t, page, { subject: '7003', email: 'dorothy@example.test', name: 'Dorothy Vaughan' });
  const [account] = await findAccountsByEmail(stack.app.services.pool, 'dorothy@example.test');
  if (account === undefined) {
    t.fail('no account');
    return;
  }
  // Twelve earlier runs straight in the ledger (oldest first, some with an API key), then one made here,
  // in the browser session.
  const apiKey = await buildApiKey(stack.app.services.pool, account.id, { name: 'ci' });
  for (let index = 0; index < 12; index += 1) {
    const education = index % 3 === 0;
    await insertLedgerRow(stack.app.services.pool, account.id, {
      apiKeyId: index % 2 === 0 ? apiKey.id : null,
      preset: education ? 'education' : 'finance',
      profile: education ? 'fast_accurate' : 'balanced_investor',
      createdAt: new Date(Date.UTC(2026, 0, 1, 9, index)).toISOString(),
    });
  }
  await goTo(page, 'Run');
  await page.locator('#simulate').getByLabel('Seed').fill('31');
  await page.locator('#simulate').getByLabel('Number of interactions').fill('200');
  await page.getByRole('button', { name: 'Run simulation' }).click();
  await page.locator('#sim-figure[data-points="200"]').waitFor({ timeout: 30_000 });
  await goTo(page, 'History');

  // 1. Newest first, ten a page: the browser's own run leads, made with the session.
  const rows = page.locator('#history-body tr');
  const newest = page.locator('#history-body tr:first-child', { hasText: /Balanced investor.*31.*200/ });
  await newest.waitFor();
  t.is(await rows.count(), 10);
  t.regex((await rows.first().textContent()) ?? '', /Finance.*Balanced investor.*31.*200.*Completed.*Browser session/);
  t.regex((await rows.nth(2).textContent()) ?? '', new RegExp(`Key ${apiKey.key_prefix}…`));
  await shoot(t, page, '11-history');
  await page.getByRole('button', { name: 'Older runs' }).click();
  await page.locator('#history-position', { hasText: 'Page 2' }).waitFor();
  t.is(await rows.count(), 3);
  t.false(await page.getByRole('button', { name: 'Older runs' }).isVisible());
  await page.getByRole('button', { name: 'Newer runs' }).click();
  await page.locator('#history-position', { hasText: 'Page 1' }).waitFor();

  // 2. Filtered by preset.
  await page.locator('#history-preset').selectOption('education');
  await page.locator('#history-body tr', { hasText: 'Finance' }).first().waitFor({ state: 'detached' });
  t.is(await rows.count(), 4);
  for (const text of await rows.allTextContents()) {
    t.regex(text, /Education.*Fast accurate/);
  }
  await shoot(t, page, '12-history-filtered');
  await page.locator('#history-preset').selectOption('');
  await page.locator('#history-position', { hasText: 'Page 1' }).waitFor();
  await newest.waitFor();

  // 3. An earlier run shown again: the service made its records again, the ones its inputs determine.
  const earlier = rows.nth(1);
  const earlierId = await earlier.getAttribute('data-simulation-id');
  await earlier.getByRole('button', { name: /^Show the/ }).click();
  // Shown on the Run page, a step in the browser's history: Back returns to the History.
  await page.waitForURL(`${stack.url}/account/run`);
  await page.locator('#sim-figure[data-points="10"]').waitFor({ timeout: 30_000 });
  t.regex((await page.locator('#sim-result-title').textContent()) ?? '', /shown again$/);
  t.regex((await page.locator('#sim-repro').textContent()) ?? '', /preset finance, profile balanced_investor, seed 7, engine 1\.0\.0/);
  const expected = generateRecords({ preset: 'finance', profile: 'balanced_investor', seed: 7, numInteractions: 10, serviceVersion: '1.0.0' });
  const shownRows = await page.locator('#sim-table tbody tr').allTextContents();
  t.is(shownRows.length, 10);
  t.deepEqual(
    await page.locator('#sim-table tbody tr').first().locator('td').allTextContents(),
    ['sequence_id', 'interaction_id', 'state', 'portfolio_value', 'daily_return', 'risk_alert'].map((field) => String(expected[0]?.[field])),
  );
  t.true((await countPixelsNear(page, '#sim-chart canvas', [31, 95, 191])) > 20, 'the chart is drawn');
  await shoot(t, page, '13-history-shown-again');

  // 4. Downloads come from the server's records endpoint in the format asked for, saved as they came.
  await page.goBack();
  await page.waitForURL(`${stack.url}/account/history`);
  await earlier.waitFor();
  for (const [label, accept, extension] of [['CSV', 'text/csv', 'csv'], ['NDJSON', 'application/x-ndjson', 'ndjson']] as const) {
    const [download, response] = await Promise.all([
      page.waitForEvent('download'),
      page.waitForResponse((candidate) => candidate.url().endsWith(`/v1/simulations/${earlierId}/records`) && candidate.request().headers().accept === accept),
      earlier.getByRole('button', { name: new RegExp(`as ${label}$`) }).click(),
    ]);
    t.is(response.status(), 200);
    t.is(download.suggestedFilename(), `simulation-finance-balanced_investor-seed7-n10.${extension}`);
    const saved = path.join(t.context.shots, `14-history-download.${extension}`);
    await download.saveAs(saved);
    t.deepEqual(await readFile(saved), await response.body());
  }

  // 5. Run again with a new seed: the same inputs but the seed, as a new run at the top of the history.
  const runAgain = rows.first().getByRole('button', { name: /^Run the .* again with new random draws$/ });
  t.is(await runAgain.getAttribute('title'), 'The same inputs with a new seed');
  const previousId = await rows.first().getAttribute('data-simulation-id');
  await runAgain.click();
  await page.waitForURL(`${stack.url}/account/run`);
  await goTo(page, 'History');
  await page.locator(`#history-body tr:first-child:not([data-simulation-id="${previousId}"])`).waitFor({ timeout: 30_000 });
  const rerun = (await rows.first().locator('td').allTextContents()).slice(0, 6);
  t.deepEqual([rerun[0], rerun[1], rerun[3], rerun[4]], ['Finance', 'Balanced investor', '200', 'Completed']);
  t.not(rerun[2], '31');
  t.is(await page.locator('#simulate').getByLabel('Seed').inputValue(), '');
  await shoot(t, page, '15-history-run-again');
  t.deepEqual(policyViolations(problems), []);
  t.deepEqual(problems, []);
});
