import { readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import anyTest, { type TestFn } from 'ava';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';

const test = anyTest as TestFn<{ app: TestApp }>;
const require = createRequire(import.meta.url);

test.before(async (t) => {
  t.context.app = await startTestApp();
});

test.after.always(async (t) => {
  await t.context.app?.close();
});

const get = (t: { context: { app: TestApp } }, path: string, headers: Record<string, string> = {}) =>
  fetch(`${t.context.app.url}${path}`, { headers, redirect: 'manual' });

interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
}

/**
 * A request through node:http, byte for byte: fetch would normalise dot segments, decode compressed
 * bodies, and add `Cache-Control: no-cache` to conditional requests.
 */
const raw = (base: string, target: string, headers: Record<string, string> = {}): Promise<RawResponse> =>
  new Promise((resolve, reject) => {
    request(`${base}/`, { path: target, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
    })
      .on('error', reject)
      .end();
  });

const assetUrls = (html: string): string[] => [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((match) => match[1] as string);

test('the landing page has a place for the configured sign-in providers and links to /docs, under a strict Content-Security-Policy', async (t) => {
  const response = await get(t, '/');
  t.is(response.status, 200);
  t.is(response.headers.get('content-type'), 'text/html; charset=utf-8');
  const html = await response.text();
  // The buttons are the configured providers only, from GET /v1/auth/providers (test/auth/signInChoices.test.ts).
  t.regex(html, /<ul [^>]*id="sign-in-list"[^>]*><\/ul>/);
  t.regex(html, /<a href="\/docs">/);
  const csp = response.headers.get('content-security-policy') ?? '';
  t.true(csp.includes("default-src 'self'"));
  t.true(csp.includes("script-src 'self'"));
  t.true(csp.includes("frame-ancestors 'none'"));
  t.false(csp.includes('unsafe-inline'));
  t.false(csp.includes('unsafe-eval'));
  t.is(response.headers.get('x-content-type-options'), 'nosniff');
  t.is(response.headers.get('cache-control'), 'no-cache');
  // no-referrer would make browsers send `Origin: null` on same-origin POSTs, which the CSRF check refuses.
  t.is(response.headers.get('referrer-policy'), 'same-origin');
});

test('the console page is served at /account with the same policy and its sections', async (t) => {
  const response = await get(t, '/account');
  t.is(response.status, 200);
  t.true((response.headers.get('content-security-policy') ?? '').includes("default-src 'self'"));
  const html = await response.text();
  for (const id of ['account', 'usage', 'keys', 'simulate', 'revoke-dialog']) {
    t.true(html.includes(`id="${id}"`), id);
  }
});

test("the console's pages below /account are the same document under the same policy; an unknown page is a 404", async (t) => {
  const console = await (await get(t, '/account')).text();
  for (const page of ['run', 'history', 'models', 'streams', 'keys', 'usage']) {
    const response = await get(t, `/account/${page}`);
    t.is(response.status, 200, page);
    t.true((response.headers.get('content-security-policy') ?? '').includes("script-src 'self'"), page);
    t.is(await response.text(), console, page);
  }
  // A stream's own page (a deep link to it) is the same document; only a stream id names one.
  const stream = await get(t, '/account/streams/0b6f1f4e-3c1a-4d5e-9f00-1234567890ab');
  t.is(stream.status, 200);
  t.is(await stream.text(), console);
  for (const path of ['/account/nowhere', '/account/run/more', '/account/constructor', '/account/streams/not-an-id', '/account/keys/0b6f1f4e-3c1a-4d5e-9f00-1234567890ab']) {
    const response = await get(t, path);
    t.is(response.status, 404, path);
    await response.arrayBuffer();
  }
});

test('the model gallery is served to the Models page with an index of names and descriptions', async (t) => {
  const html = await (await get(t, '/account')).text();
  const index = /data-index="([^"]+)"/.exec(html)?.[1] ?? '';
  const base = /data-base="([^"]+)"/.exec(html)?.[1] ?? '';
  const entries = (await (await get(t, index)).json()) as { name: string; description: string }[];
  const files = readdirSync(new URL('../../docs/models/', import.meta.url)).filter((file) => file.endsWith('.json'));
  t.deepEqual(entries.map((entry) => `${entry.name}.json`), files.sort());
  for (const entry of entries) {
    const response = await get(t, `${base}/${entry.name}.json`);
    t.is(response.headers.get('content-type'), 'application/json; charset=utf-8');
    t.is(await response.text(), readFileSync(new URL(`../../docs/models/${entry.name}.json`, import.meta.url), 'utf8'));
  }
});

test('the pages carry no inline script, inline style or event-handler attribute and load nothing from another origin', async (t) => {
  for (const path of ['/', '/account']) {
    const html = await (await get(t, path)).text();
    t.notRegex(html, /<script(?![^>]*\bsrc=)[^>]*>/, `${path}: inline <script>`);
    t.notRegex(html, /<style[\s>]/, `${path}: <style>`);
    t.notRegex(html, /\sstyle=/, `${path}: style attribute`);
    t.notRegex(html, /\son[a-z]+=/, `${path}: event handler attribute`);
    t.notRegex(html, /(?:src|href)="(?:https?:)?\/\//, `${path}: off-site resource`);
  }
});

test('every asset the pages reference is served with its content type and cached as immutable', async (t) => {
  const urls = new Set<string>();
  for (const path of ['/', '/account']) {
    for (const url of assetUrls(await (await get(t, path)).text())) {
      urls.add(url);
    }
  }
  t.true(urls.size >= 5);
  const types: Record<string, string> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8', svg: 'image/svg+xml' };
  for (const url of urls) {
    const response = await get(t, url);
    t.is(response.status, 200, url);
    t.is(response.headers.get('content-type'), types[url.split('.').at(-1) ?? ''] ?? 'unexpected extension', url);
    t.is(response.headers.get('cache-control'), 'public, max-age=31536000, immutable', url);
    t.is(response.headers.get('x-content-type-options'), 'nosniff', url);
    await response.arrayBuffer();
  }
});

test('uPlot is served from the installed package, not from a CDN', async (t) => {
  const html = await (await get(t, '/account')).text();
  const css = assetUrls(html).find((url) => url.endsWith('/vendor/uPlot.min.css'));
  t.truthy(css);
  const version = css?.split('/')[2];
  const script = await get(t, `/assets/${version}/vendor/uPlot.esm.js`);
  t.is(script.status, 200);
  t.is(script.headers.get('content-type'), 'text/javascript; charset=utf-8');
  t.deepEqual(Buffer.from(await script.arrayBuffer()), readFileSync(require.resolve('uplot/dist/uPlot.esm.js')));
});

test('every relative module import between the console scripts resolves to a served file', async (t) => {
  const html = await (await get(t, '/account')).text();
  const entry = assetUrls(html).find((url) => url.endsWith('/js/account.js')) as string;
  const seen = new Set<string>();
  const queue = [entry, entry.replace('/account.js', '/landing.js')];
  while (queue.length > 0) {
    const url = queue.pop() as string;
    if (seen.has(url)) {
      continue;
    }
    seen.add(url);
    const response = await get(t, url);
    t.is(response.status, 200, url);
    const source = await response.text();
    // Static imports at the start of a line and dynamic import() calls; not the text of a code example.
    for (const match of source.matchAll(/^(?:import|export)\b[^'\n]*?from\s*'(\.{1,2}\/[^']+)'|\bimport\(\s*'(\.{1,2}\/[^']+)'\s*\)/gm)) {
      queue.push(new URL((match[1] ?? match[2]) as string, `http://host${url}`).pathname);
    }
  }
  for (const module of ['simulationChart.js', 'usageChart.js', 'chartPlugins.js', 'usageDailyPanel.js', 'gettingStarted.js', 'plansPanel.js', 'scenarioEditor.js', 'scenarioBands.js', 'counterfactual.js', 'counterfactualPanel.js', 'recordsTable.js']) {
    t.true([...seen].some((url) => url.endsWith(`/js/${module}`)), module);
  }
  t.true([...seen].some((url) => url.endsWith('/vendor/uPlot.esm.js')));
});

test('assets are sent compressed to clients that accept it, and the bytes decompress to the original', async (t) => {
  const html = await (await get(t, '/account')).text();
  const url = assetUrls(html).find((candidate) => candidate.endsWith('/js/account.js')) as string;
  const plain = await raw(t.context.app.url, url, { 'Accept-Encoding': 'identity' });
  t.is(plain.headers['content-encoding'], undefined);
  // Browsers list gzip before br; br, the smaller, is still chosen.
  const br = await raw(t.context.app.url, url, { 'Accept-Encoding': 'gzip, deflate, br, zstd' });
  t.is(br.headers['content-encoding'], 'br');
  t.is(br.headers.vary, 'Accept-Encoding');
  t.true(br.body.length < plain.body.length);
  t.deepEqual(brotliDecompressSync(br.body), plain.body);
  const gzip = await raw(t.context.app.url, url, { 'Accept-Encoding': 'gzip' });
  t.is(gzip.headers['content-encoding'], 'gzip');
  t.deepEqual(gunzipSync(gzip.body), plain.body);
});

test('a repeated request with the ETag gets 304 Not Modified', async (t) => {
  for (const encoding of ['identity', 'br']) {
    const first = await raw(t.context.app.url, '/account', { 'Accept-Encoding': encoding });
    const etag = first.headers.etag;
    t.is(typeof etag, 'string');
    const second = await raw(t.context.app.url, '/account', { 'Accept-Encoding': encoding, 'If-None-Match': etag as string });
    t.is(second.status, 304, encoding);
    t.is(second.body.length, 0);
  }
});

test('paths that try to leave the asset folder get 404, whatever their encoding', async (t) => {
  const html = await (await get(t, '/account')).text();
  const version = (assetUrls(html)[0] as string).split('/')[2];
  const statusOf = async (target: string) => (await raw(t.context.app.url, target)).status;
  for (const target of [
    `/assets/${version}/../../package.json`,
    `/assets/${version}/%2e%2e/%2e%2e/package.json`,
    `/assets/${version}/..%2f..%2fpackage.json`,
    `/assets/${version}/js/../../../api/app.ts`,
    `/assets/${version}/%2e%2e%2f%2e%2e%2f.env`,
    `/assets/${version}/../pages/account.html`,
    `/assets/${version}/`,
    `/assets/${version}/js/nope.js`,
  ]) {
    t.is(await statusOf(target), 404, target);
  }
});

test('an asset requested under an older version is still served, but revalidated instead of cached for a year', async (t) => {
  const response = await get(t, '/assets/000000000000/css/site.css');
  t.is(response.status, 200);
  t.is(response.headers.get('cache-control'), 'no-cache');
  await response.arrayBuffer();
});
