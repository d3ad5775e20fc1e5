import test from 'ava';
import type { Browser } from 'playwright-core';
import { OPERATIONS } from '../../api/openapi/operations.ts';
import { launchChromium } from '../helpers/browser.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';

let app: TestApp;
let browser: Browser;

test.before(async () => {
  app = await startTestApp();
  browser = await launchChromium();
});

test.after.always(async () => {
  await browser?.close();
  await app?.close();
});

test('GET /docs is a page with a strict CSP whose assets are all served from /docs itself', async (t) => {
  const response = await fetch(`${app.url}/docs`);
  t.is(response.status, 200);
  t.regex(response.headers.get('content-type') ?? '', /^text\/html/);
  t.regex(response.headers.get('content-security-policy') ?? '', /script-src 'self'/);
  const html = await response.text();
  const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1] as string);
  t.deepEqual(assets.filter((url) => !url.startsWith('/')), [], 'nothing from another origin');
  for (const asset of assets.filter((url) => url.startsWith('/docs/'))) {
    const served = await fetch(`${app.url}${asset}`);
    t.is(served.status, 200, asset);
    await served.arrayBuffer();
  }
  t.is((await fetch(`${app.url}/docs/../package.json`)).status, 404);
  t.is((await fetch(`${app.url}/docs/nothing.js`)).status, 404);
});

test('in a browser, /docs renders every documented operation from /openapi.json without CSP or script errors', async (t) => {
  const context = await browser.newContext();
  t.teardown(() => context.close());
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') {
      problems.push(message.text());
    }
  });
  page.on('pageerror', (error) => problems.push(error.message));
  const external: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(app.url)) {
      external.push(request.url());
    }
  });
  await page.goto(`${app.url}/docs`);
  await page.waitForSelector('section.operation');
  const ids = await page.$$eval('section.operation', (sections) => sections.map((section) => section.id));
  t.deepEqual(ids.sort(), OPERATIONS.map((operation) => operation.operationId).sort());
  const simulation = await page.textContent('#runSimulation');
  t.regex(simulation ?? '', /\/v1\/simulations/);
  t.regex(simulation ?? '', /num_interactions/);
  t.regex(simulation ?? '', /429/);
  t.deepEqual(problems, []);
  t.deepEqual(external, []);
});
