import test from 'ava';
import type { Browser } from 'playwright-core';
import { OPERATIONS } from '../../api/openapi/operations.ts';
import type { OperationExamples } from '../../api/routes/docs/operationExamples.ts';
import { createBssClient } from '../../sdk/index.ts';
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

const examples = async (): Promise<Record<string, OperationExamples>> => (await (await fetch(`${app.url}/docs/examples.json`)).json()) as Record<string, OperationExamples>;

test('every operation has a request in curl, TypeScript and Python, and an answer, built from the same schemas the routes validate with', async (t) => {
  const all = await examples();
  t.deepEqual(Object.keys(all).sort(), OPERATIONS.map((operation) => operation.operationId).sort());
  for (const operation of OPERATIONS) {
    const example = all[operation.operationId];
    const path = operation.path.replace(/\{\w+\}/g, '[^/?\']+');
    t.regex(example?.curl ?? '', new RegExp(`^curl -si?${operation.method === 'get' ? '' : ` -X ${operation.method.toUpperCase()}`} '[^']*${path}(\\?[^']*)?'`), operation.operationId);
    t.true((example?.typescript ?? '') !== '' && (example?.python ?? '') !== '', operation.operationId);
    // The request body shown is one the route accepts.
    const body = /-d '(.*)'$/m.exec(example?.curl ?? '')?.[1];
    if (operation.requestBody !== undefined && operation.requestBodyOptional !== true) {
      t.true(operation.requestBody.schema.safeParse(JSON.parse(body ?? 'null')).success, `${operation.operationId}: ${body}`);
    }
    // The answer shown is one the documented schema of that status accepts.
    const response = operation.responses[example?.response.status ?? 0];
    t.truthy(response, `${operation.operationId}: a documented status`);
    if (response?.body !== undefined && response.body !== 'error') {
      const parsed = response.body.schema.safeParse(example?.response.body);
      t.true(parsed.success, `${operation.operationId}: ${JSON.stringify(parsed.error?.issues)}`);
    }
  }
});

test("the TypeScript examples call only the SDK's own methods, and the Python ones the bss client's documented calls", async (t) => {
  const sdk = new Set(Object.keys(createBssClient({ baseUrl: 'http://localhost:3000' })));
  const python = new Set(['presets', 'simulate', 'history', 'download', 'usage', 'keys.list', 'keys.create', 'keys.revoke', 'keys.roll']);
  for (const [operationId, example] of Object.entries(await examples())) {
    for (const [, method] of example.typescript.matchAll(/\bbss\.(\w+)\(/g)) {
      t.true(sdk.has(method ?? ''), `${operationId}: bss.${method}`);
    }
    for (const [, method] of example.python.matchAll(/\bclient\.([\w.]+)\(/g)) {
      t.true(python.has(method ?? ''), `${operationId}: client.${method}`);
    }
  }
  // The main operation is shown with the clients' own calls.
  const run = (await examples()).runSimulation;
  t.regex(run?.typescript ?? '', /await bss\.simulate\(\{"preset":"finance","num_interactions":1000,"seed":42\}\)/);
  t.regex(run?.python ?? '', /client\.simulate\("finance", 1000, seed=42\)/);
});

test('in a browser, every operation of /docs shows its example in curl, TypeScript and Python, and its answer', async (t) => {
  const context = await browser.newContext();
  t.teardown(() => context.close());
  const page = await context.newPage();
  await page.goto(`${app.url}/docs`);
  await page.waitForSelector('section.operation .examples');
  const counts = await page.$$eval('section.operation', (sections) =>
    sections.map((section) => ['curl', 'typescript', 'python'].map((language) => section.querySelectorAll(`.example-${language} pre`).length).join(',') + (section.querySelector('.example-response') ? '+' : '-')),
  );
  t.is(counts.length, OPERATIONS.length);
  t.deepEqual([...new Set(counts)], ['1,1,1+']);
  await page.click('#runSimulation .example-python summary');
  t.regex((await page.textContent('#runSimulation .example-python pre')) ?? '', /client\.simulate\("finance", 1000, seed=42\)/);
  t.regex((await page.textContent('#runSimulation .example-response')) ?? '', /Response 200[\s\S]*"portfolio_value"/);
});

test('the landing page and the console link to /docs', async (t) => {
  for (const page of ['/', '/account']) {
    const html = await (await fetch(`${app.url}${page}`)).text();
    t.regex(html, /<a href="\/docs">[^<]+<\/a>/, page);
  }
});

test('the examples show real values: the preset catalog as served, a real plan, a finished run', async (t) => {
  const all = await examples();
  const catalog = (await (await fetch(`${app.url}/v1/presets`)).json());
  t.deepEqual(all.listPresets?.response.body, catalog, 'the catalog as GET /v1/presets answers');
  t.deepEqual(all.getPreset?.response.body, (catalog as { name: string }[]).find((preset) => preset.name === 'finance'));
  const fidelity = all.getPresetFidelity?.response.body as { preset: string; facts: { description: string }[] };
  t.is(fidelity.preset, 'finance');
  t.false(fidelity.facts.some((fact) => fact.description === 'string'));
  for (const plan of all.listPlans?.response.body as { name: string }[]) {
    t.true(['free', 'pro', 'enterprise'].includes(plan.name), plan.name);
  }
  const run = (all.listSimulations?.response.body as { data: { status: string; preset: string }[] }).data[0];
  t.is(run?.status, 'completed');
  t.is(run?.preset, 'finance');
  t.false(JSON.stringify(all.getUsage?.response.body).includes('"string"'));
});

test('in a browser, no path in the sidebar is cut, and at 390 px the page does not scroll sideways', async (t) => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  t.teardown(() => context.close());
  const page = await context.newPage();
  await page.goto(`${app.url}/docs`);
  await page.waitForSelector('section.operation .examples');
  interface Measured {
    readonly scrollWidth: number;
    readonly clientWidth: number;
    readonly textContent: string | null;
    getBoundingClientRect(): { right: number };
  }
  const cut = () =>
    page.$$eval('nav a', (links) => {
      const nav = (links[0] as unknown as { closest(selector: string): Measured } | undefined)?.closest('nav');
      const edge = nav?.getBoundingClientRect().right ?? 0;
      return (links as unknown as Measured[]).filter((link) => link.scrollWidth > link.clientWidth || link.getBoundingClientRect().right > edge + 0.5).map((link) => link.textContent);
    });
  t.deepEqual(await cut(), []);
  t.true((await page.$$eval('nav a', (links) => links.length)) > 10);
  await page.setViewportSize({ width: 390, height: 844 });
  const sideways = await page.waitForFunction(
    () => {
      const { document, innerWidth } = globalThis as unknown as { document: { documentElement: { scrollWidth: number } }; innerWidth: number };
      return document.documentElement.scrollWidth <= innerWidth;
    },
    undefined,
    { timeout: 10_000 },
  ).then(
    () => true,
    () => false,
  );
  t.true(sideways, 'no sideways scrolling at 390 px');
  t.deepEqual(await cut(), []);
});
