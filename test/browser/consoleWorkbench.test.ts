import anyTest, { type TestFn } from 'ava';
import type { Page } from 'playwright-core';
import { findAccountsByEmail } from '../../shared/db/queries/accounts.ts';
import { buildApiKey } from '../helpers/factories.ts';
import { insertSettledRuns } from '../usage/usageFixtures.ts';
import { type ConsoleContext, countPixelsNear, fitsWidth, goTo, openPage, type PageWindow, policyViolations, shoot, shootPart, signIn, useConsoleStack } from './consolePage.ts';

// The console as a small application (issue 38): its pages, each its own URL, and the layout defects
// measured on the one long page it was, each checked by measuring boxes in the browser.

const test = anyTest as TestFn<ConsoleContext>;
useConsoleStack(test, 'console-workbench');

// Just enough of the DOM for the measuring callbacks (the project's tsconfig has no DOM library).
interface Box {
  readonly left: number;
  readonly right: number;
  readonly top: number;
  readonly bottom: number;
  readonly height: number;
}
interface Node {
  readonly scrollWidth: number;
  readonly clientWidth: number;
  readonly textContent: string | null;
  readonly offsetLeft: number;
  readonly lastElementChild: Node | null;
  getBoundingClientRect(): Box;
  querySelectorAll(selector: string): Iterable<Node>;
  closest(selector: string): Node | null;
}
interface MeasureDocument {
  querySelector(selector: string): Node | null;
  querySelectorAll(selector: string): Iterable<Node>;
  createRange(): { selectNodeContents(node: Node): void; getClientRects(): { readonly length: number } };
}
// The callbacks run in the page, so each reads the page's own document.
interface Globals {
  readonly document: MeasureDocument;
}

const PAGES = ['Overview', 'Run', 'History', 'Models', 'Streams', 'Keys', 'Usage'] as const;
const RUN_LINE_RGB: [number, number, number] = [31, 95, 191];
const COUNTERFACTUAL_RGB: [number, number, number] = [107, 114, 128];

/** Whether a region's content fits it (nothing cut off or scrolled sideways), and whether every one of `inner` ends inside it. */
const fitsRegion = (page: Page, region: string, inner: string) =>
  page.evaluate(
    ([regionSelector, innerSelector]) => {
      // A table is measured by the scrolling region it sits in.
      const box = (globalThis as unknown as Globals).document.querySelector(regionSelector as string)?.closest('.table-scroll') ?? null;
      if (box === null) {
        return { fits: false, why: `${regionSelector} is missing` };
      }
      const outer = box.getBoundingClientRect();
      const outside = [...box.querySelectorAll(innerSelector as string)].filter((node) => node.getBoundingClientRect().right > outer.right + 0.5);
      return { fits: box.scrollWidth <= box.clientWidth && outside.length === 0, why: `${box.scrollWidth} > ${box.clientWidth}, ${outside.length} cut off` };
    },
    [region, inner],
  );

test.serial('pages: each its own URL, deep links and the back button work, the focus lands on the page heading, and every page fits 1280 and 390 px', async (t) => {
  const { stack } = t.context;
  const { page, problems } = await openPage(t);
  await signIn(t, page, { subject: '7301', email: 'barbara@example.test', name: 'Barbara Liskov' });
  t.is(await page.title(), 'Overview · Console · Behavioral Simulation Service');
  const nav = page.getByRole('navigation', { name: 'Console' });
  t.deepEqual(await nav.getByRole('link').allTextContents(), [...PAGES]);
  t.is(await nav.getByRole('link', { name: 'Overview' }).getAttribute('aria-current'), 'page');

  // By keyboard: Tab to the link of the Run page, Enter; the page's heading has the focus.
  await nav.getByRole('link', { name: 'History' }).focus();
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Enter');
  await page.waitForURL(`${stack.url}/account/run`);
  t.is(await page.evaluate(() => (globalThis as unknown as PageWindow).document.activeElement?.id ?? ''), 'page-run-title');
  t.is(await nav.getByRole('link', { name: 'Run' }).getAttribute('aria-current'), 'page');
  t.true(await page.locator('#simulate').isVisible());
  t.false(await page.locator('#keys').isVisible(), 'one page at a time');
  await goTo(page, 'Keys');
  t.is(page.url(), `${stack.url}/account/keys`);
  // Back and forward move between pages as between documents.
  await page.goBack();
  await page.waitForURL(`${stack.url}/account/run`);
  await page.locator('#simulate').waitFor();
  await page.goForward();
  await page.waitForURL(`${stack.url}/account/keys`);
  await page.locator('#keys').waitFor();
  // A deep link (a reload, a bookmark) opens its page; an unknown page is the server's 404.
  await page.goto(`${stack.url}/account/usage`);
  await page.locator('#usage-daily').waitFor();
  t.is(await page.title(), 'Usage · Console · Behavioral Simulation Service');
  t.is((await fetch(`${stack.url}/account/nowhere`)).status, 404);
  // Streams: the form to start one and the account's streams.
  await goTo(page, 'Streams');
  t.true(await page.getByRole('region', { name: 'Start a live stream' }).isVisible());
  t.true(await page.getByRole('region', { name: 'Your streams', exact: true }).isVisible());

  // Every page, at a desk and on a phone, without sideways scrolling (the Run page with a result on it).
  await goTo(page, 'Run');
  await page.locator('#simulate').getByLabel('Number of interactions').fill('200');
  await page.getByRole('button', { name: 'Run simulation' }).click();
  await page.locator('#sim-figure[data-points="200"]').waitFor({ timeout: 30_000 });
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    for (const name of PAGES) {
      await goTo(page, name);
      t.true(await fitsWidth(page), `${name} at ${width} px`);
      await shoot(t, page, `${name.toLowerCase()}-${width}`);
    }
  }
  t.deepEqual(policyViolations(problems), []);
  t.deepEqual(problems, []);
});

test.serial('defects 1 and 2: the fidelity table fits its box and lists no fact twice; a run without a scenario offers no counterfactual and no event rows', async (t) => {
  const { page, problems } = await openPage(t);
  await signIn(t, page, { subject: '7302', email: 'frances@example.test', name: 'Frances Allen' });
  await goTo(page, 'Run');
  await page.locator('#simulate').getByLabel('Preset').selectOption('finance');
  await page.locator('#simulate').getByLabel('Seed').fill('11');
  await page.locator('#simulate').getByLabel('Number of interactions').fill('200');
  await page.getByRole('button', { name: 'Run simulation' }).click();
  await page.locator('#sim-figure[data-points="200"]').waitFor({ timeout: 30_000 });
  await page.locator('#sim-fidelity:not([data-facts="0"])[data-facts]').waitFor({ timeout: 30_000 });

  // 1. Every column of the facts table inside its box, and each fact once.
  const fidelity = await fitsRegion(page, '#sim-fidelity', 'th, td');
  t.true(fidelity.fits, fidelity.why);
  const facts = await page.locator('#sim-fidelity tbody th').allTextContents();
  t.true(facts.length > 5);
  t.deepEqual(facts, [...new Set(facts)], 'no fact listed twice');
  t.true(facts.includes('Excess kurtosis of daily_return'));

  // 2. No scenario, so nothing about one: no counterfactual button, no choice of rows around events.
  t.false(await page.getByRole('button', { name: 'Run the counterfactual' }).isVisible());
  t.false(await page.locator('#sim-scenario').isVisible());
  t.false(await page.getByLabel('Rows shown').isVisible());
  t.is(await page.locator('#sim-table caption').textContent(), 'First 20 of 200 records');
  t.deepEqual(problems, []);
});

test.serial('defect 3: a run with a scenario opens on its first event window, and the counterfactual is seen there at once', async (t) => {
  const { page, problems } = await openPage(t);
  await signIn(t, page, { subject: '7303', email: 'radia@example.test', name: 'Radia Perlman' });
  await goTo(page, 'Run');
  await page.locator('#simulate').getByLabel('Preset').selectOption('finance');
  await page.locator('#simulate').getByLabel('Seed').fill('42');
  await page.locator('#simulate').getByLabel('Number of interactions').fill('400');
  await page.getByRole('button', { name: 'Add an event' }).click();
  const event = page.getByRole('group', { name: 'Event 1' });
  await event.getByLabel('Event type').selectOption('market_crash');
  await event.getByLabel('Sequence').fill('1');
  await event.getByLabel('Starts at step').fill('30');
  await event.getByLabel('Duration (steps)').fill('6');
  const [response] = await Promise.all([
    page.waitForResponse((candidate) => candidate.url().endsWith('/v1/simulations') && candidate.request().method() === 'POST'),
    page.getByRole('button', { name: 'Run simulation' }).click(),
  ]);
  const { data } = (await response.json()) as { data: Record<string, string | number | null>[] };
  await page.locator('#sim-figure[data-points="400"]').waitFor({ timeout: 30_000 });

  // Engine 4: the chart is on its event-time axis, and opens on the window (steps 30–35 of sequence 1)
  // without any dragging, the window a good part of the plot.
  t.is(await page.locator('#sim-figure').getAttribute('data-axis'), 'time');
  const window = data.filter((record) => record.sequence_id === 1 && record.scenario_event === 'market_crash').map((record) => Date.parse(String(record.event_time)));
  t.is(window.length, 6);
  const zoom = (await page.locator('#sim-figure').getAttribute('data-zoom')) ?? '';
  t.regex(zoom, /^\d{4}-\d\d-\d\dT[\d:.]+Z\/\d{4}-\d\d-\d\dT[\d:.]+Z$/);
  const [min = 0, max = 0] = zoom.split('/').map((instant) => Date.parse(instant));
  const first = Math.min(...window);
  const last = Math.max(...window);
  t.true(min <= first && max >= last, `the window ${new Date(first).toISOString()}–${new Date(last).toISOString()} is in view (${zoom})`);
  t.true((last - first) / (max - min) >= 0.15, `the window is at least 15 % of the plot (${zoom})`);
  t.is(await page.locator('#sim-chart').getAttribute('data-x-range'), zoom, 'the x scale is on the window');
  t.regex((await page.locator('#sim-chart-caption').textContent()) ?? '', /The chart opens on the first event window, \d{4}-\d\d-\d\d [\d:.]+ UTC to \d{4}-\d\d-\d\d [\d:.]+ UTC; double-click it to see the whole run\./);

  await page.getByRole('button', { name: 'Run the counterfactual' }).click();
  await page.getByRole('button', { name: 'Hide the counterfactual' }).waitFor({ timeout: 30_000 });
  await page.locator('#sim-figure:not([data-counterfactual="0"])').waitFor();
  const grey = await countPixelsNear(page, '#sim-chart .chart-panel:first-child canvas', COUNTERFACTUAL_RGB);
  t.true(grey > 200, `the dashed counterfactual is seen at once: ${grey} grey pixels`);
  t.true((await countPixelsNear(page, '#sim-chart .chart-panel:first-child canvas', RUN_LINE_RGB)) > 200, 'and the run itself');
  t.is(await page.locator('#sim-figure').getAttribute('data-zoom'), zoom, 'still on the window');
  await shoot(t, page, 'scenario-zoomed');
  t.deepEqual(problems, []);
});

test.serial('time axis: an engine-4 run of order "time" is charted over its event times in UTC, each subject its own line, the x scale from its first event to its last; order, population and start time come from the form', async (t) => {
  const { page, problems } = await openPage(t);
  await signIn(t, page, { subject: '7305', email: 'grace@example.test', name: 'Grace Hopper' });
  await goTo(page, 'Run');
  const form = page.locator('#simulate');
  await form.getByLabel('Preset').selectOption('healthcare');
  await form.getByLabel('Seed').fill('5');
  await form.getByLabel('Number of interactions').fill('300');
  await form.getByLabel('Order').selectOption('time');
  await form.getByLabel('Population').fill('8');
  await form.getByLabel('Start time (UTC)').fill('2026-03-02T09:30');
  const [response] = await Promise.all([
    page.waitForResponse((candidate) => candidate.url().endsWith('/v1/simulations') && candidate.request().method() === 'POST'),
    form.getByRole('button', { name: 'Run simulation' }).click(),
  ]);
  t.like(response.request().postDataJSON(), { preset: 'healthcare', order: 'time', population: 8, start_time: '2026-03-02T09:30:00.000Z' });
  const result = (await response.json()) as { order: string; population: number; data: Record<string, string | number | null>[] };
  t.is(result.order, 'time');
  await page.locator('#sim-figure[data-points="300"]').waitFor({ timeout: 30_000 });

  // A real time axis: x is the event time, the scale exactly the run's first to last event (order "time": the
  // first and last records), ticked with dates and times, not interaction numbers.
  const chart = page.locator('#sim-chart');
  t.is(await chart.getAttribute('data-axis'), 'time');
  const times = result.data.map((record) => Date.parse(String(record.event_time)));
  t.deepEqual(times, [...times].sort((a, b) => a - b), 'order "time": the records in event-time order');
  t.true((times[0] ?? 0) >= Date.parse('2026-03-02T09:30:00.000Z'));
  t.is(await chart.getAttribute('data-x-range'), `${String(result.data[0]?.event_time)}/${String(result.data.at(-1)?.event_time)}`);
  const ticks = JSON.parse((await chart.getAttribute('data-x-ticks')) ?? '[]') as string[];
  t.true(ticks.length >= 3, `ticks: ${ticks.join(' | ')}`);
  const dateOrTime = /^(\d{2}:\d{2}(:\d{2}(\.\d{3})?)?|[A-Z][a-z]{2} \d{1,2}|[A-Z][a-z]{2}( \d{4})?)(\n([A-Z][a-z]{2} \d{1,2}|\d{4}))?$/;
  for (const label of ticks) {
    t.regex(label, dateOrTime);
  }
  t.true(ticks[0]?.includes('\n'), 'the first tick names its day (or year) too');
  // The legend reads the latest record at its instant, with its subject and state.
  const legend = page.locator('#sim-chart .chart-panel').first().locator('.u-legend');
  t.is((await legend.locator('.u-label').allTextContents())[0], 'Event time');
  const last = result.data.at(-1);
  t.is((await legend.locator('.u-value').allTextContents())[0], `${String(last?.event_time).slice(0, 10)} ${String(last?.event_time).slice(11, 23).replace(/\.000$/, '')} UTC · sequence ${last?.sequence_id} · ${last?.state}`);
  // The patients overlap in time: each its own line, the states shaded those of the subject in the legend.
  const sequences = new Set(result.data.map((record) => record.sequence_id)).size;
  t.true(sequences >= 8);
  t.regex((await page.locator('#sim-chart-caption').textContent()) ?? '', new RegExp(`${sequences} sequences, each its own line; they overlap in time`));
  t.is(await chart.getAttribute('data-bands-of'), String(last?.sequence_id));
  t.true((await countPixelsNear(page, '#sim-chart .chart-panel:first-child canvas', RUN_LINE_RGB)) > 200, 'the lines are drawn');
  // Pointing at another moment shades that record's subject.
  const plot = page.locator('#sim-chart .chart-panel').first().locator('.u-over');
  const box = await plot.boundingBox();
  if (box === null) {
    t.fail('no plot area');
    return;
  }
  await page.mouse.move(box.x + box.width * 0.1, box.y + box.height / 2, { steps: 4 });
  const pointed = /sequence (\d+)/.exec((await legend.locator('.u-value').allTextContents())[0] ?? '')?.[1] ?? '';
  await page.locator(`#sim-chart[data-bands-of="${pointed}"]`).waitFor();
  await page.mouse.move(5, 5, { steps: 2 });
  // The same run through the API says its order, population and start.
  const request = (await page.locator('#sim-request').textContent()) ?? '';
  for (const part of ['"order": "time"', '"population": 8', '"start_time": "2026-03-02T09:30:00.000Z"']) {
    t.true(request.includes(part), part);
  }
  await shootPart(t, page, '#sim-figure', 'run-time-axis-1280');
  await page.setViewportSize({ width: 390, height: 844 });
  t.true(await fitsWidth(page), 'no sideways scrolling at 390 px');
  await page.locator('#sim-figure').scrollIntoViewIfNeeded();
  await shootPart(t, page, '#sim-figure', 'run-time-axis-390');

  // Run again from the history: the same order, population and start, a new seed.
  await page.setViewportSize({ width: 1280, height: 900 });
  await goTo(page, 'History');
  const [again] = await Promise.all([
    page.waitForRequest((candidate) => candidate.url().endsWith('/v1/simulations') && candidate.method() === 'POST'),
    page.locator('#history-body tr').first().getByRole('button', { name: /^Run the .* again with new random draws$/ }).click(),
  ]);
  t.like(again.postDataJSON(), { preset: 'healthcare', order: 'time', population: 8, start_time: '2026-03-02T09:30:00.000Z' });
  t.is(await form.getByLabel('Order').inputValue(), 'time');
  t.deepEqual(problems, []);
});

test.serial('defect 4: at 1280 px the usage axis labels sit inside their axes, the key and credential tables show every column, history rows are tidy, and the account card is full', async (t) => {
  const { stack } = t.context;
  const { page, problems } = await openPage(t);
  await signIn(t, page, { subject: '7304', email: 'adele@example.test', name: 'Adele Goldberg' });
  const [account] = await findAccountsByEmail(stack.app.services.pool, 'adele@example.test');
  if (account === undefined) {
    t.fail('no account');
    return;
  }
  const key = await buildApiKey(stack.app.services.pool, account.id, { name: 'nightly pipeline of the research group' });
  // A busy month: six-figure interactions, so the axis labels are as wide as they get.
  await insertSettledRuns(stack.app.services.pool, [
    { accountId: account.id, apiKeyId: key.id, status: 'completed', numInteractions: 250_000 },
    { accountId: account.id, sessionId: account.id, status: 'completed', numInteractions: 120_000 },
    ...Array.from({ length: 3 }, (_, index) => ({ accountId: account.id, apiKeyId: key.id, status: 'completed' as const, numInteractions: 100 + index })),
  ]);

  // The account card: its content fills it, beside the usage card.
  await page.reload();
  await page.locator('#account-limits', { hasText: 'per run' }).waitFor();
  const filled = await page.evaluate(() => {
    const card = (globalThis as unknown as Globals).document.querySelector('#account');
    const last = card?.lastElementChild?.getBoundingClientRect();
    const box = card?.getBoundingClientRect();
    return box === undefined || last === undefined ? 0 : (last.bottom - box.top) / box.height;
  });
  t.true(filled >= 0.75, `the account card's content reaches ${Math.round(filled * 100)} % of its height`);

  // Usage: the y-axis labels inside their axes (no text at the canvas's left edge), every column in view.
  await goTo(page, 'Usage');
  await page.locator('#usage-figure[data-days]').waitFor();
  const edgeInk = await page.locator('#usage-chart canvas').evaluateAll((canvases) =>
    canvases.map((canvas) => {
      const { width, height } = canvas as unknown as { width: number; height: number };
      const context = (canvas as unknown as { getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> } } }).getContext('2d');
      const { data } = context.getImageData(0, 0, 2, height);
      let ink = 0;
      for (let index = 0; index < data.length; index += 4) {
        if ((data[index + 3] ?? 0) > 100 && (data[index] ?? 255) < 160) {
          ink += 1;
        }
      }
      return { width, ink };
    }),
  );
  t.true(edgeInk.length >= 2);
  t.deepEqual(edgeInk.map((canvas) => canvas.ink), edgeInk.map(() => 0), 'no label runs past the left edge of its axis');
  const credentials = await fitsRegion(page, '#usage-credentials-table', 'th, td');
  t.true(credentials.fits, `credentials table: ${credentials.why}`);
  t.true(await page.locator('#usage-credentials-head th', { hasText: 'Last run' }).isVisible());

  // Keys: every column and the Revoke button in view.
  await goTo(page, 'Keys');
  await page.locator(`#keys-body tr[data-key-id="${key.id}"]`).waitFor();
  const keys = await fitsRegion(page, '#keys-table', 'th, td, button');
  t.true(keys.fits, `keys table: ${keys.why}`);
  t.true(await page.getByRole('button', { name: /^Revoke key nightly/ }).isVisible());

  // History: a date on one line; the buttons of every row on one grid.
  await goTo(page, 'History');
  await page.locator('#history-body tr[data-simulation-id]').nth(4).waitFor();
  const history = await page.evaluate(() => {
    const rows = [...(globalThis as unknown as Globals).document.querySelectorAll('#history-body tr[data-simulation-id]')];
    const dateLines = rows.map((row) => {
      const range = (globalThis as unknown as Globals).document.createRange();
      const cell = [...row.querySelectorAll('th')][0];
      if (cell === undefined) {
        return 0;
      }
      range.selectNodeContents(cell);
      return range.getClientRects().length;
    });
    const lefts = rows.map((row) => [...row.querySelectorAll('.row-actions .button')].map((button) => Math.round(button.getBoundingClientRect().left)));
    const heights = new Set(rows.flatMap((row) => [...row.querySelectorAll('.row-actions .button')].map((button) => Math.round(button.getBoundingClientRect().height))));
    return { dateLines, lefts, heights: [...heights] };
  });
  t.deepEqual(history.dateLines, history.dateLines.map(() => 1), 'every date on one line');
  t.true(history.lefts.every((lefts) => JSON.stringify(lefts) === JSON.stringify(history.lefts[0])), `buttons on one grid: ${JSON.stringify(history.lefts)}`);
  t.is(history.heights.length, 1, `every button one line high: ${JSON.stringify(history.heights)}`);
  const historyFits = await fitsRegion(page, '#history-table', 'th, td, button');
  t.true(historyFits.fits, `history table: ${historyFits.why}`);
  await shoot(t, page, 'history-tidy');
  t.deepEqual(problems, []);
});
