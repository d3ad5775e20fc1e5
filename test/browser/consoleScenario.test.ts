import anyTest, { type ExecutionContext, type TestFn } from 'ava';
import type { Page } from 'playwright-core';
import {
  type ConsoleContext,
  countPixelsNear,
  fitsWidth,
  goTo,
  openPage,
  type PageWindow,
  policyViolations,
  shoot,
  shootPart,
  signIn,
  useConsoleStack,
} from './consolePage.ts';

// The console's scenarios (engine 3): the event editor in the run form, the event windows on the chart
// and in the table, the counterfactual overlaid, from the form and from the history, and the API's 422
// issues beside the fields they name.

const test = anyTest as TestFn<ConsoleContext>;
useConsoleStack(test, 'console-scenario');

type SimRecord = Record<string, string | number | null>;
interface SimResult {
  readonly seed: number;
  readonly data: SimRecord[];
  readonly scenario?: unknown;
  readonly metadata: { readonly service_version: string };
}
interface PostedRun {
  readonly seed?: number;
  readonly engine_version?: string;
  readonly scenario?: { readonly events: readonly Record<string, unknown>[] };
}

// The event hatch and label strip (the first type's colour) and the counterfactual's grey, as RGB.
const EVENT_RGB: [number, number, number] = [157, 23, 77];
const COUNTERFACTUAL_RGB: [number, number, number] = [107, 114, 128];
const FIRST_PANEL = '#sim-chart .chart-panel:first-child canvas';

/** The id of the element that has the keyboard focus. */
const focusedId = (page: Page) => page.evaluate(() => (globalThis as unknown as PageWindow).document.activeElement?.id ?? '');

/** The id of a control, to compare with the focused one. */
const idOf = async (control: ReturnType<Page['getByLabel']>) => (await control.getAttribute('id')) ?? '(no id)';

const event = (page: Page, number: number) => page.getByRole('group', { name: `Event ${number}` });

/** Waits for the console's next POST /v1/simulations and gives its body and its result. */
const nextRun = async (page: Page, act: () => Promise<void>) => {
  const [response] = await Promise.all([
    page.waitForResponse((candidate) => candidate.url().endsWith('/v1/simulations') && candidate.request().method() === 'POST'),
    act(),
  ]);
  return { posted: response.request().postDataJSON() as PostedRun, status: response.status(), body: (await response.json()) as unknown };
};

const catalogEvents = async (t: ExecutionContext<ConsoleContext>, preset: string) => {
  const catalog = (await (await fetch(`${t.context.stack.app.url}/v1/presets`)).json()) as { name: string; scenario_events: { type: string; description: string }[] }[];
  return catalog.find((entry) => entry.name === preset)?.scenario_events ?? [];
};

test.serial('a market crash on sequence 1: its window hatched on the chart and highlighted in the table, then the counterfactual overlaid, from the form and from the history', async (t) => {
  const { page, problems } = await openPage(t);
  await signIn(t, page, { subject: '7201', email: 'hedy@example.test', name: 'Hedy Lamarr' });
  await goTo(page, 'Run');
  await page.locator('#simulate').getByLabel('Preset').selectOption('finance');
  await page.locator('#simulate').getByLabel('Seed').fill('42');
  await page.locator('#simulate').getByLabel('Number of interactions').fill('300');
  t.is(await page.locator('#scenario-count').textContent(), 'No events: the run is made as usual.');

  // 1. The editor, by keyboard: Add puts the focus on the new event's type; its description is the catalog's.
  await page.getByRole('button', { name: 'Add an event' }).focus();
  await page.keyboard.press('Enter');
  const first = event(page, 1);
  await first.waitFor();
  t.is(await focusedId(page), await idOf(first.getByLabel('Event type')));
  const types = await catalogEvents(t, 'finance');
  t.deepEqual(await first.getByLabel('Event type').locator('option').evaluateAll((options) => options.map((option) => (option as unknown as { value: string }).value)), types.map((entry) => entry.type));
  await first.getByLabel('Event type').selectOption('market_crash');
  const description = types.find((entry) => entry.type === 'market_crash')?.description ?? '(missing)';
  t.true(((await first.locator('.scenario-field-type .hint').textContent()) ?? '').startsWith(description));
  // Each field is named by its label and described by its hint, for a screen reader.
  for (const label of ['Event type', 'Sequence', 'Starts at step', 'Duration (steps)', 'Intensity']) {
    const described = (await first.getByLabel(label).getAttribute('aria-describedby')) ?? '';
    t.true(described.split(' ').length === 2, label);
  }
  await first.getByLabel('Sequence').fill('1');
  await first.getByLabel('Starts at step').fill('10');
  await first.getByLabel('Duration (steps)').fill('20');
  await first.getByLabel('Intensity').fill('1');
  // A second event, removed again by keyboard: the focus goes back to the first.
  await page.getByRole('button', { name: 'Add an event' }).click();
  await event(page, 2).waitFor();
  t.is(await page.locator('#scenario-count').textContent(), '2 of 16 events.');
  await page.getByRole('button', { name: 'Remove event 2' }).focus();
  await page.keyboard.press('Enter');
  await event(page, 2).waitFor({ state: 'detached' });
  t.is(await focusedId(page), await idOf(first.getByLabel('Event type')));
  await shootPart(t, page, '#simulate', '01-editor');

  // 2. The run carries the scenario; the records in the event's window carry its type.
  const run = await nextRun(page, () => page.getByRole('button', { name: 'Run simulation' }).click());
  t.is(run.status, 200, JSON.stringify(run.body));
  t.deepEqual(run.posted.scenario, { events: [{ type: 'market_crash', sequence: 1, at_step: 10, duration: 20, intensity: 1 }] });
  const result = run.body as SimResult;
  await page.locator('#sim-figure[data-points="300"]').waitFor({ timeout: 30_000 });
  const inWindow = result.data.filter((record) => record.scenario_event === 'market_crash');
  t.true(inWindow.length > 0 && inWindow.every((record) => record.sequence_id === 1));
  // Sequence 1 comes first (order "sequence"), so its steps are its interaction ids.
  const from = Number(inWindow[0]?.interaction_id);
  const to = Number(inWindow.at(-1)?.interaction_id);
  t.is(from, 10);
  // On engine 4's time axis a window is named by its steps and its instants (UTC).
  const instant = (iso: unknown) => `${String(iso).slice(0, 10)} ${String(iso).slice(11, 19)} UTC`;
  t.true(
    ((await page.locator('#sim-chart-caption').textContent()) ?? '').includes(
      `Scenario event market_crash on sequence 1, steps ${from}–${to}, ${instant(inWindow[0]?.event_time)} to ${instant(inWindow.at(-1)?.event_time)} (hatched).`,
    ),
  );
  t.true((await countPixelsNear(page, FIRST_PANEL, EVENT_RGB)) > 300, 'the window is hatched and labelled in its colour');
  t.deepEqual(await page.locator('#sim-scenario-legend li').allTextContents(), ['market_crash (event window)']);
  // The table: the scenario_event column last, the window's rows highlighted and named.
  t.is((await page.locator('#sim-table thead th').allTextContents()).at(-1), 'scenario_event');
  t.is(await page.getByLabel('Rows shown').inputValue(), 'events');
  const marked = page.locator('#sim-table tbody tr.is-scenario-event');
  t.is(await marked.count(), inWindow.length);
  t.deepEqual([...new Set(await marked.locator('td:last-child').allTextContents())], ['market_crash']);
  t.is(await page.locator('#sim-table tbody tr:not(.is-scenario-event) td:last-child', { hasText: /\S/ }).count(), 0, 'no record outside the window is marked');
  await shootPart(t, page, '#sim-figure', '02-scenario-window');

  // 3. The counterfactual: the same inputs and engine without the scenario, both series on the chart.
  const greyBefore = await countPixelsNear(page, FIRST_PANEL, COUNTERFACTUAL_RGB);
  await shootPart(t, page, '#sim-figure', '02b-before-counterfactual');
  const counterfactual = await nextRun(page, () => page.getByRole('button', { name: 'Run the counterfactual' }).click());
  t.is(counterfactual.status, 200);
  t.is(counterfactual.posted.scenario, undefined);
  t.is(counterfactual.posted.seed, 42);
  t.is(counterfactual.posted.engine_version, result.metadata.service_version);
  await page.getByRole('button', { name: 'Hide the counterfactual' }).waitFor({ timeout: 30_000 });
  // Drawn at each record's own place (sequence and step): every place both runs have.
  const placesOf = (records: readonly SimRecord[]) => {
    const steps = new Map<unknown, number>();
    return records.map((record) => {
      steps.set(record.sequence_id, (steps.get(record.sequence_id) ?? 0) + 1);
      return `${record.sequence_id}:${steps.get(record.sequence_id)}`;
    });
  };
  const counterfactualPlaces = new Set(placesOf((counterfactual.body as SimResult).data));
  const shared = placesOf(result.data).filter((place) => counterfactualPlaces.has(place)).length;
  t.is(await page.locator('#sim-figure').getAttribute('data-counterfactual'), String(shared));
  await shootPart(t, page, '#sim-figure', '03-counterfactual');
  const labels = await page.locator('#sim-chart .chart-panel').first().locator('.u-legend .u-label').allTextContents();
  t.deepEqual(labels.slice(0, 3), ['Event time', 'With scenario', 'Counterfactual']);
  t.deepEqual((await page.locator('#sim-scenario-legend li').allTextContents()).slice(1), [
    'With scenario (solid)',
    'Counterfactual, without the scenario (dashed grey)',
  ]);
  const greyAfter = await countPixelsNear(page, FIRST_PANEL, COUNTERFACTUAL_RGB);
  t.true(greyAfter > greyBefore + 30, `the counterfactual line is drawn: ${greyBefore} grey pixels before, ${greyAfter} after`);
  t.regex((await page.locator('#sim-chart-caption').textContent()) ?? '', /Inside the event windows, Portfolio value averages [\d.,]+ with the scenario and [\d.,]+ without\./);
  // Hidden and shown again without another run.
  let sent = 0;
  page.on('request', (request) => {
    if (request.url().endsWith('/v1/simulations') && request.method() === 'POST') {
      sent += 1;
    }
  });
  await page.getByRole('button', { name: 'Hide the counterfactual' }).click();
  await page.getByRole('button', { name: 'Show the counterfactual' }).waitFor();
  // The chart is drawn again after the button turns: wait for its legend, then read it.
  const legend = page.locator('#sim-chart .chart-panel').first().locator('.u-legend .u-label');
  await legend.filter({ hasText: /^Portfolio value$/ }).waitFor();
  t.is((await legend.allTextContents())[1], 'Portfolio value');
  t.is(sent, 0);

  // 4. The history marks the run, and "Show" brings its windows back, with its counterfactual a click away.
  await goTo(page, 'History');
  const row = page.locator('#history-body tr', { hasText: 'with market_crash' }).first();
  await row.waitFor();
  await shootPart(t, page, '#history', '04a-history');
  await row.getByRole('button', { name: /^Show the/ }).click();
  await page.locator('#sim-result-title', { hasText: 'shown again' }).waitFor({ timeout: 30_000 });
  await page.locator('#sim-figure[data-points="300"]').waitFor({ timeout: 30_000 });
  t.is(await page.locator('#sim-table tbody tr.is-scenario-event').count(), inWindow.length);
  // By keyboard this time: the focus stays on the button, and a screen reader hears that the line is drawn.
  await page.getByRole('button', { name: 'Run the counterfactual' }).focus();
  await page.keyboard.press('Enter');
  await page.getByRole('button', { name: 'Hide the counterfactual' }).waitFor({ timeout: 30_000 });
  t.is(await focusedId(page), 'sim-counterfactual');
  await page.locator('#page-status', { hasText: 'The counterfactual is drawn under the run, dashed.' }).waitFor();
  t.deepEqual((await page.locator('#sim-chart .chart-panel').first().locator('.u-legend .u-label').allTextContents()).slice(1, 3), ['With scenario', 'Counterfactual']);
  await shoot(t, page, '04-history-counterfactual');

  // 5. On a phone: no sideways scrolling with the editor and the overlay.
  await page.setViewportSize({ width: 390, height: 844 });
  t.true(await fitsWidth(page), 'no sideways scrolling at 390 px');
  await shootPart(t, page, '#sim-figure', '05-phone-figure');
  await shootPart(t, page, '#scenario', '06-phone-editor');
  t.deepEqual(policyViolations(problems), []);
  t.deepEqual(problems, []);
});

test.serial('every problem of the scenario at once, in words: bounds and an event type of another preset, before anything is sent; the editor stops at 16 events', async (t) => {
  const { page, problems } = await openPage(t);
  await signIn(t, page, { subject: '7202', email: 'joan@example.test', name: 'Joan Clarke' });
  await goTo(page, 'Run');
  const posted: string[] = [];
  page.on('request', (request) => {
    if (request.url().endsWith('/v1/simulations') && request.method() === 'POST') {
      posted.push(request.url());
    }
  });
  await page.locator('#simulate').getByLabel('Preset').selectOption('finance');
  await page.locator('#simulate').getByLabel('Number of interactions').fill('50');
  await page.getByRole('button', { name: 'Add an event' }).click();
  const first = event(page, 1);
  await first.getByLabel('Event type').selectOption('market_crash');
  await first.getByLabel('Duration (steps)').fill('2000');
  await first.getByLabel('Intensity').fill('5');
  // The preset changes under the event: its type stays, marked, rather than silently becoming another.
  await page.locator('#simulate').getByLabel('Preset').selectOption('healthcare');
  t.is(await first.getByLabel('Event type').inputValue(), 'market_crash');

  await page.getByRole('button', { name: 'Run simulation' }).click();
  const expected = [
    ['Event type', /^Market crash is not an event of Healthcare; choose one of Sepsis onset, Missed medication, Hypoxia\.$/],
    ['Duration (steps)', /^Enter a whole number of steps from 1 to 1,000\.$/],
    ['Intensity', /^Enter a number above 0 and up to 3, or leave it empty for 1\.$/],
  ] as const;
  for (const [label, wording] of expected) {
    const control = first.getByLabel(label);
    t.is(await control.getAttribute('aria-invalid'), 'true', label);
    const errorId = ((await control.getAttribute('aria-describedby')) ?? '').split(' ').at(-1) ?? '';
    const message = (await page.locator(`[id="${errorId}"]`).textContent()) ?? '';
    t.regex(message, wording, `${label}: beside the field and in its description`);
    t.notRegex(message, /Too big|Too small|expected|received/, `${label}: no validation library wording`);
  }
  t.is(await focusedId(page), await idOf(first.getByLabel('Event type')), 'the first field with a problem has the focus');
  t.deepEqual(posted, [], 'nothing was sent: the problems are known before');
  await shootPart(t, page, '#simulate', '07-issues-beside-fields');
  // Typing answers the problem shown beside that field.
  await first.getByLabel('Duration (steps)').fill('20');
  t.is(await first.getByLabel('Duration (steps)').getAttribute('aria-invalid'), null);
  t.is(await first.getByLabel('Intensity').getAttribute('aria-invalid'), 'true');

  // Sixteen events at most: the button says so instead of adding a seventeenth.
  for (let count = 2; count <= 16; count += 1) {
    await page.getByRole('button', { name: 'Add an event' }).click();
  }
  await event(page, 16).waitFor();
  t.is(await page.getByRole('button', { name: 'Add an event' }).getAttribute('aria-disabled'), 'true');
  // aria-disabled keeps the button in the Tab order; pressing it changes nothing.
  await page.getByRole('button', { name: 'Add an event' }).focus();
  await page.keyboard.press('Enter');
  t.is(await page.locator('.scenario-event').count(), 16);
  t.is(await page.locator('#scenario-count').textContent(), '16 of 16 events, the most a run takes.');
  t.deepEqual(policyViolations(problems), []);
  t.deepEqual(problems, []);
});
