import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import anyTest, { type ExecutionContext, type TestFn } from 'ava';
import type { Page } from 'playwright-core';
import { findAccountsByEmail } from '../../shared/db/queries/accounts.ts';
import { buildApiKey } from '../helpers/factories.ts';
import { readSse } from '../streams/readSse.ts';
import { apiWithKey, type ConsoleContext, fitsWidth, goTo, openPage, type PageWindow, policyViolations, shoot, shootPart, signIn, useConsoleStack } from './consolePage.ts';

// The Streams page (issue 38, docs/console.md "Streams"): a stream started from the page ticks live through
// EventSource on the browser session, its late and duplicated envelopes marked in words as the envelopes
// themselves say, cancelled from its page or the list, at its own address, with a curl command for its
// events and, for a webhook, its secret shown once.

const test = anyTest as TestFn<ConsoleContext>;
useConsoleStack(test, 'console-streams', { streams: true });

interface Envelope {
  readonly position: number;
  readonly record: Record<string, string | number | null>;
  readonly delay_ms: number;
  readonly duplicate: boolean;
}
interface StreamBody {
  readonly id: string;
  readonly status: string;
  readonly delivered: number;
  readonly num_interactions: number;
  readonly events_url: string;
}

// Just enough of the DOM for the callbacks that run in the page (the project's tsconfig has no DOM library).
interface Box {
  readonly left: number;
  readonly right: number;
  readonly width: number;
  readonly height: number;
}
interface Node {
  readonly id: string;
  readonly tagName: string;
  readonly textContent: string | null;
  readonly scrollWidth: number;
  readonly clientWidth: number;
  getBoundingClientRect(): Box;
  closest(selector: string): Node | null;
  querySelectorAll(selector: string): Iterable<Node>;
}
interface Globals {
  readonly innerWidth: number;
  readonly document: { querySelector(selector: string): Node | null; querySelectorAll(selector: string): Iterable<Node> };
  MutationObserver: new (callback: () => void) => { observe(node: Node, options: Record<string, boolean>): void };
  deliveredSeen?: string[];
  statusSeen?: string[];
}

const form = (page: Page) => page.locator('#stream-create');

/** An API key of the signed-in person's account, to read what the page reads through the API. */
const keyOf = async (t: ExecutionContext<ConsoleContext>, email: string) => {
  const [account] = await findAccountsByEmail(t.context.stack.app.services.pool, email);
  if (account === undefined) {
    throw new Error(`no account for ${email}`);
  }
  return (await buildApiKey(t.context.stack.app.services.pool, account.id)).key;
};

const startStream = async (page: Page, fields: Record<string, string>) => {
  const entries = Object.entries(fields);
  for (const [label, value] of entries) {
    const control = form(page).getByLabel(label);
    if (label === 'Preset' || label === 'Profile') {
      await control.selectOption(value);
    } else {
      await control.fill(value);
    }
  }
  const [response] = await Promise.all([
    page.waitForResponse((candidate) => candidate.url().endsWith('/v1/streams') && candidate.request().method() === 'POST'),
    form(page).getByRole('button', { name: 'Start the stream' }).click(),
  ]);
  const body = (await response.json()) as StreamBody & { webhook_secret?: string };
  if (response.status() !== 201) {
    throw new Error(`POST /v1/streams answered ${response.status()}: ${JSON.stringify(body)}`);
  }
  await page.waitForURL(`**/account/streams/${body.id}`);
  return body;
};

/** Every envelope of a stream, read through the API with a key until `event: end`. */
const envelopesOf = async (t: ExecutionContext<ConsoleContext>, key: string, id: string) => {
  const read = await readSse(`${t.context.stack.app.url}/v1/streams/${id}/events`, key);
  return { envelopes: read.events.map((event) => JSON.parse(event.data) as Envelope), end: read.end === undefined ? undefined : (JSON.parse(read.end) as StreamBody) };
};

/** The rows of the page's envelope table: position, delivery cell, the row's own marks. */
const tableRows = (page: Page) =>
  page.locator('#stream-events-body tr[data-position]').evaluateAll((rows) =>
    rows.map((row) => {
      const node = row as unknown as Node & { dataset: Record<string, string>; className: string };
      const cells = [...node.querySelectorAll('td')].map((cell) => (cell.textContent ?? '').trim());
      return { position: Number(node.dataset.position), delayMs: Number(node.dataset.delayMs), duplicate: node.dataset.duplicate === 'true', delivery: cells[1] ?? '', eventTime: cells[2] ?? '', className: node.className };
    }),
  );

/** "2026-01-01T00:57:16.235Z" as the page writes it: "2026-01-01 00:57:16.235 UTC". */
const asShown = (iso: string) => `${iso.slice(0, 10)} ${iso.endsWith('.000Z') ? iso.slice(11, 19) : iso.slice(11, 23)} UTC`;

/**
 * Whether everything visible on the Streams page lies inside the viewport (nothing cut off at the right
 * edge), scrolling regions aside (wide tables and code scroll inside their own box); and whether the tables
 * named fit their regions whole.
 */
const layoutOf = (page: Page, whole: readonly string[]) =>
  page.evaluate((tables) => {
    const { document, innerWidth } = globalThis as unknown as Globals;
    const outside = [...document.querySelectorAll('#page-streams *')]
      .filter((node) => node.closest('.table-scroll, pre') === null)
      .filter((node) => {
        const box = node.getBoundingClientRect();
        return box.width > 0 && box.height > 0 && (box.right > innerWidth + 0.5 || box.left < -0.5);
      })
      .map((node) => `${node.tagName.toLowerCase()}#${node.id}`);
    const cut = tables.filter((selector) => {
      const region = document.querySelector(selector)?.closest('.table-scroll') ?? null;
      return region === null || region.scrollWidth > region.clientWidth;
    });
    return { outside, cut };
  }, whole);

test.serial('a stream started from the page ticks live on the session: envelopes arrive newest first, the count rises to num_interactions, the end says completed; its address reloads to it, Back returns to the list, and Copy curl gives its events URL', async (t) => {
  const { stack } = t.context;
  const { context, page, problems } = await openPage(t);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.url });
  await signIn(t, page, { subject: '7501', email: 'katherine@example.test', name: 'Katherine Johnson' });
  await goTo(page, 'Streams');
  t.true(await page.locator('#stream-create').isVisible());
  t.false(await page.locator('#stream-live').isVisible(), 'no stream open at /account/streams');
  await page.locator('#streams-body', { hasText: 'No streams yet' }).waitFor();

  // Every change of the delivered count, as the page makes it (a screen reader is told only at milestones).
  await page.evaluate(() => {
    const globals = globalThis as unknown as Globals;
    globals.deliveredSeen = [];
    globals.statusSeen = [];
    const cell = globals.document.querySelector('#stream-delivered');
    const status = globals.document.querySelector('#stream-status');
    if (cell !== null && status !== null) {
      new globals.MutationObserver(() => globals.deliveredSeen?.push(cell.textContent ?? '')).observe(cell, { childList: true, characterData: true, subtree: true });
      new globals.MutationObserver(() => globals.statusSeen?.push(status.textContent ?? '')).observe(status, { childList: true, characterData: true, subtree: true });
    }
  });
  const created = await startStream(page, { Preset: 'mobile_app', Seed: '7', 'Number of interactions': '300', Population: '20', Speed: '40000' });
  t.is(page.url(), `${stack.url}/account/streams/${created.id}`);
  t.false(await page.locator('#stream-create').isVisible(), 'the form steps aside for the stream');
  await page.locator('#stream-live-title', { hasText: 'Stream of Mobile app (Casual user)' }).waitFor();
  t.is(await page.evaluate(() => (globalThis as unknown as PageWindow).document.activeElement?.id ?? ''), 'stream-live-title', 'the focus lands on the stream');

  // Envelopes arrive while it runs: the table fills, newest at the top.
  await page.locator('#stream-events-body tr[data-position]').first().waitFor({ timeout: 30_000 });
  await page.locator('#stream-live[data-end="completed"]').waitFor({ timeout: 90_000 });
  const seen = await page.evaluate(() => (globalThis as unknown as Globals).deliveredSeen ?? []);
  const counts = seen.map((text) => Number(/^([\d,]+) of/.exec(text)?.[1]?.replaceAll(',', '') ?? Number.NaN)).filter((count) => !Number.isNaN(count));
  t.true(new Set(counts).size >= 3, `the count rose in steps: ${counts.join(', ')}`);
  t.deepEqual(counts, [...counts].sort((a, b) => a - b), 'never down');
  t.is(counts.at(-1), 300);
  const statuses = await page.evaluate(() => (globalThis as unknown as Globals).statusSeen ?? []);
  t.true(statuses.includes('Running Live: each event arrives when it is due.'), `said live while running: ${[...new Set(statuses)].join(' / ')}`);
  t.is(await page.locator('#stream-delivered').textContent(), '300 of 300 records');
  t.regex((await page.locator('#stream-status').textContent()) ?? '', /^Completed at .+: every record delivered\.$/);
  t.is(await page.locator('#stream-cancel').isVisible(), false, 'nothing to cancel once it ended');
  t.is(await page.locator('#stream-announce').textContent(), 'Stream completed: 300 of 300 records delivered, 0 duplicates, 0 late.');

  // The page's table is the stream's own last 50 envelopes, as the API serves them to a key.
  const key = await keyOf(t, 'katherine@example.test');
  const { envelopes, end } = await envelopesOf(t, key, created.id);
  t.is(end?.status, 'completed');
  t.is(envelopes.length, 300);
  const rows = await tableRows(page);
  t.deepEqual(
    rows.map((row) => row.position),
    envelopes.slice(-50).map((envelope) => envelope.position).reverse(),
    'the latest 50, newest first',
  );
  t.deepEqual(rows.map((row) => row.eventTime), envelopes.slice(-50).reverse().map((envelope) => asShown(String(envelope.record.event_time))));
  t.deepEqual([...new Set(rows.map((row) => row.delivery))], ['On time']);
  // The chart holds the latest 400 at their event times: all 300, its x range from the first to the clock.
  const chart = page.locator('#stream-chart');
  t.is(await chart.getAttribute('data-points'), '300');
  const times = envelopes.map((envelope) => Date.parse(String(envelope.record.event_time)));
  t.is(await chart.getAttribute('data-x-range'), `${new Date(Math.min(...times)).toISOString()}/${new Date(Math.max(...times)).toISOString()}`);
  const ticks = JSON.parse((await chart.getAttribute('data-x-ticks')) ?? '[]') as string[];
  t.true(ticks.length >= 3 && ticks.every((label) => /\d{2}:\d{2}|[A-Z][a-z]{2}/.test(label)), `time labels: ${ticks.join(' | ')}`);
  const listed = (await (await apiWithKey(t, key, `/v1/streams/${created.id}`)).json()) as StreamBody;
  t.is(listed.status, 'completed');
  t.is(listed.delivered, 300);

  // Copy curl: a ready command for the events, the key a placeholder.
  await page.getByRole('button', { name: 'Copy curl' }).click();
  await page.locator('#stream-curl-copied', { hasText: 'Copied to the clipboard.' }).waitFor();
  const command = await page.evaluate(() => (globalThis as unknown as PageWindow).navigator.clipboard.readText());
  t.is(command, `curl -N -H "Authorization: Bearer $BSS_API_KEY" \\\n  "${stack.url}/v1/streams/${created.id}/events"`);
  t.false(command.includes('bs_live_'), 'never a real key');
  await shoot(t, page, '01-completed');

  // Its address is its own: a reload shows the same stream, read again from its start.
  await page.reload();
  await page.locator('#stream-live[data-end="completed"]').waitFor({ timeout: 30_000 });
  t.is(await page.locator('#stream-live').getAttribute('data-stream-id'), created.id);
  t.is(await page.locator('#stream-delivered').textContent(), '300 of 300 records');
  t.deepEqual((await tableRows(page)).map((row) => row.position), rows.map((row) => row.position));
  // The list below: the stream completed, 300 of 300, Open and no Cancel.
  const listRow = page.locator(`#streams-body tr[data-stream-id="${created.id}"]`);
  await listRow.waitFor();
  t.deepEqual((await listRow.locator('th, td').allTextContents()).slice(1, 4), ['Mobile app (Casual user)', 'Completed', '300 of 300']);
  t.is(await listRow.getByRole('button', { name: /^Cancel/ }).count(), 0);
  // Back to the list and forward to the stream, as between documents.
  await page.goBack();
  await page.waitForURL(`${stack.url}/account/streams`);
  await page.locator('#stream-create').waitFor();
  t.false(await page.locator('#stream-live').isVisible());
  await page.goForward();
  await page.waitForURL(`${stack.url}/account/streams/${created.id}`);
  await page.locator('#stream-live[data-end="completed"]').waitFor({ timeout: 30_000 });
  // Open from the list goes to the same address.
  await page.goBack();
  await page.locator('#stream-create').waitFor();
  await listRow.getByRole('link', { name: /^Open the stream of Mobile app/ }).click();
  await page.waitForURL(`${stack.url}/account/streams/${created.id}`);
  await page.locator('#stream-live[data-end="completed"]').waitFor({ timeout: 30_000 });
  t.deepEqual(policyViolations(problems), []);
  t.deepEqual(problems, []);
});

test.serial('a disordered stream: every late and duplicated envelope is marked, in words, as its own delay_ms and duplicate say; the counts match; the page fits 1280 and 390 px', async (t) => {
  const { page, problems } = await openPage(t);
  await signIn(t, page, { subject: '7502', email: 'dorothy@example.test', name: 'Dorothy Vaughan' });
  await goTo(page, 'Streams');
  const created = await startStream(page, {
    Preset: 'mobile_app',
    Seed: '11',
    'Number of interactions': '400',
    Population: '20',
    Speed: '40000',
    'Late share (%)': '30',
    'Maximum delay (s)': '3600',
    'Duplicate share (%)': '10',
  });
  await page.locator('#stream-live[data-end="completed"]').waitFor({ timeout: 90_000 });
  const { envelopes } = await envelopesOf(t, await keyOf(t, 'dorothy@example.test'), created.id);
  const byPosition = new Map(envelopes.map((envelope) => [envelope.position, envelope]));
  const late = envelopes.filter((envelope) => !envelope.duplicate && envelope.delay_ms > 0).length;
  const duplicates = envelopes.filter((envelope) => envelope.duplicate).length;
  t.true(late > 0 && duplicates > 0, `the stream has disorder: ${late} late, ${duplicates} duplicates`);

  // Each row says what its envelope is: "On time", "Late by …", "Duplicate…", and carries its delay.
  const rows = await tableRows(page);
  t.is(rows.length, 50);
  for (const row of rows) {
    const envelope = byPosition.get(row.position);
    if (envelope === undefined) {
      t.fail(`row ${row.position} is no envelope of the stream`);
      continue;
    }
    t.is(row.delayMs, envelope.delay_ms, `position ${row.position}: its delay`);
    t.is(row.duplicate, envelope.duplicate, `position ${row.position}: duplicate or not`);
    const expected = envelope.duplicate ? /^Duplicate(, late by .+)?$/ : envelope.delay_ms > 0 ? /^Late by \d.*$/ : /^On time$/;
    t.regex(row.delivery, expected, `position ${row.position}`);
    t.is(row.className.includes('is-late'), envelope.delay_ms > 0);
    t.is(row.className.includes('is-duplicate'), envelope.duplicate);
  }
  t.true(rows.some((row) => row.delivery.startsWith('Late by')), 'late rows among the latest 50');
  // The counts are the envelopes' own.
  const live = page.locator('#stream-live');
  t.is(await live.getAttribute('data-records'), '400');
  t.is(await live.getAttribute('data-late'), String(late));
  t.is(await live.getAttribute('data-duplicates'), String(duplicates));
  t.is(await page.locator('#stream-duplicates').textContent(), String(duplicates));
  t.regex((await page.locator('#stream-late').textContent()) ?? '', new RegExp(`^${late} \\(`));
  // The chart marks the latest 400 envelopes by kind.
  const chart = page.locator('#stream-chart');
  const tail = envelopes.slice(-400);
  t.is(await chart.getAttribute('data-late'), String(tail.filter((envelope) => !envelope.duplicate && envelope.delay_ms > 0).length));
  t.is(await chart.getAttribute('data-duplicates'), String(tail.filter((envelope) => envelope.duplicate).length));
  t.deepEqual(await page.locator('#stream-chart-legend li').allTextContents(), ['On time', 'Late', 'Duplicate', 'The stream’s clock']);

  // At a desk and on a phone: no sideways scrolling, nothing past the right edge; at 1280 the tables whole.
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width === 390 ? 844 : 900 });
    t.true(await fitsWidth(page), `no sideways scrolling at ${width} px`);
    const layout = await layoutOf(page, width === 1280 ? ['#stream-events-table', '#streams-table'] : []);
    t.deepEqual(layout.outside, [], `nothing cut off at ${width} px`);
    t.deepEqual(layout.cut, [], `tables whole at ${width} px`);
    // The chart is as wide as its card, within the viewport.
    const canvas = await page.locator('#stream-chart canvas').boundingBox();
    t.true(canvas !== null && canvas.x >= 0 && canvas.x + canvas.width <= width, `the chart within ${width} px`);
    await shoot(t, page, `streams-${width}`);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  await shootPart(t, page, '#stream-figure', 'stream-chart');
  t.deepEqual(policyViolations(problems), []);
  t.deepEqual(problems, []);
});

test.serial('cancel: from the stream by keyboard, and from the list; both end cancelled, as the API says', async (t) => {
  const { stack } = t.context;
  const { page, problems } = await openPage(t);
  await signIn(t, page, { subject: '7503', email: 'mary@example.test', name: 'Mary Jackson' });
  await goTo(page, 'Streams');
  const key = await keyOf(t, 'mary@example.test');
  // Real time: its events take days, so it is running when cancelled.
  const first = await startStream(page, { Preset: 'finance', 'Number of interactions': '200', Speed: '1' });
  await page.locator('#stream-status', { hasText: 'Running Waiting for the first event.' }).waitFor();
  const cancel = page.getByRole('button', { name: 'Cancel the stream', exact: true });
  await cancel.focus();
  await page.keyboard.press('Enter');
  await page.locator('#stream-live[data-end="cancelled"]').waitFor({ timeout: 30_000 });
  t.regex((await page.locator('#stream-status').textContent()) ?? '', /^Cancelled/);
  t.false(await cancel.isVisible());
  t.is(((await (await apiWithKey(t, key, `/v1/streams/${first.id}`)).json()) as StreamBody).status, 'cancelled');
  const firstRow = page.locator(`#streams-body tr[data-stream-id="${first.id}"]`);
  await firstRow.locator('td', { hasText: 'Cancelled' }).waitFor();

  // The free plan runs one stream at a time: the slot is free again. The second is cancelled from the list.
  await page.goto(`${stack.url}/account/streams`);
  await form(page).waitFor();
  const second = await startStream(page, { Preset: 'finance', 'Number of interactions': '200', Speed: '1' });
  await page.goto(`${stack.url}/account/streams`);
  const secondRow = page.locator(`#streams-body tr[data-stream-id="${second.id}"]`);
  await secondRow.getByRole('button', { name: /^Cancel the stream of Finance/ }).click();
  await secondRow.locator('td', { hasText: 'Cancelled' }).waitFor({ timeout: 30_000 });
  t.is(await secondRow.getByRole('button', { name: /^Cancel/ }).count(), 0);
  t.is(((await (await apiWithKey(t, key, `/v1/streams/${second.id}`)).json()) as StreamBody).status, 'cancelled');
  await page.locator('#page-status', { hasText: 'cancelled' }).waitFor();

  // A stream that is not the account's: its address says so, and nothing else is shown.
  await page.goto(`${stack.url}/account/streams/00000000-0000-4000-8000-000000000000`);
  await page.locator('#stream-live-error', { hasText: 'No stream of yours has this id' }).waitFor();
  t.is(await page.locator('#stream-live-title').textContent(), 'Stream not found');
  t.deepEqual(policyViolations(problems), []);
  t.deepEqual(problems.filter((problem) => !problem.includes('404')), []);
});

test.serial('a webhook stream: its secret is shown once, signs the deliveries the URL receives, and leaves the page when saved', async (t) => {
  const received: { body: string; signature: string }[] = [];
  const receiver = http.createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => {
      received.push({ body, signature: String(request.headers['bss-signature'] ?? '') });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => receiver.close(() => resolve())));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/bss`;

  const { page, problems } = await openPage(t);
  await signIn(t, page, { subject: '7504', email: 'annie@example.test', name: 'Annie Easley' });
  await goTo(page, 'Streams');
  // A bad address is refused before anything is sent.
  await form(page).getByLabel('Webhook URL').fill('ftp://example.test/x');
  await form(page).getByRole('button', { name: 'Start the stream' }).click();
  t.is(await form(page).getByLabel('Webhook URL').getAttribute('aria-invalid'), 'true');
  t.is(await page.locator('#stream-webhook-error').textContent(), 'Enter an http or https address, or leave it empty.');
  const created = await startStream(page, { 'Number of interactions': '60', Population: '10', Speed: '100000', 'Webhook URL': hook });
  t.regex(created.webhook_secret ?? '', /^whsec_/);
  const secretField = page.getByLabel('Webhook secret', { exact: true });
  await secretField.waitFor();
  t.is(await secretField.inputValue(), created.webhook_secret ?? '(none)');
  t.regex((await page.locator('#stream-secret-warning').textContent()) ?? '', /it will not be shown again/);
  await shootPart(t, page, '#stream-live', 'webhook-secret');

  // The secret shown is the one the deliveries are signed with.
  await page.locator('#stream-live[data-end="completed"]').waitFor({ timeout: 90_000 });
  const delivery = await (async () => {
    for (let attempt = 0; attempt < 100 && received.length === 0; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return received[0];
  })();
  if (delivery === undefined) {
    t.fail('no webhook delivery arrived');
    return;
  }
  const { t: stamp, v1 } = Object.fromEntries(delivery.signature.split(',').map((part) => part.split('='))) as { t?: string; v1?: string };
  t.is(v1, createHmac('sha256', created.webhook_secret ?? '').update(`${stamp}.${delivery.body}`).digest('hex'));

  // "I have saved it": gone from the page, and not back after a reload.
  await page.getByRole('button', { name: 'I have saved it' }).click();
  t.false(await page.locator('#stream-secret').isVisible());
  for (const attempt of ['dismissed', 'reloaded']) {
    if (attempt === 'reloaded') {
      await page.reload();
      await page.locator('#stream-live[data-status]').waitFor();
    }
    const html = await page.evaluate(() => {
      const { document } = globalThis as unknown as PageWindow;
      return document.documentElement.outerHTML + [...document.querySelectorAll('input')].map((input) => input.value).join(' ');
    });
    t.false(html.includes(created.webhook_secret ?? '(none)'), attempt);
  }
  t.deepEqual(policyViolations(problems), []);
  t.deepEqual(problems, []);
});
