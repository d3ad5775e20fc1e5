import http from 'node:http';
import test from 'ava';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../helpers/browser.ts';
import { TEST_PUBLIC_URL } from '../helpers/signInWithIdp.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { browserRequest, useSignInStack } from './authFixtures.ts';

// Both providers configured (on the test identity provider), NODE_ENV=test.
const stack = useSignInStack(test);
let githubOnly: TestApp;
let developmentBare: TestApp;
let browser: Browser;

test.before(async () => {
  githubOnly = await startTestApp({ env: { OAUTH_GITHUB_CLIENT_ID: 'github-client', OAUTH_GITHUB_CLIENT_SECRET: 'github-secret' } });
  developmentBare = await startTestApp({ env: { NODE_ENV: 'development' }, database: githubOnly.database });
  browser = await launchChromium();
});

test.after.always(async () => {
  await browser?.close();
  await developmentBare?.close();
  await githubOnly?.close();
});

test('GET /v1/auth/providers lists only the configured providers; only development says how to sign in locally', async (t) => {
  const both = await browserRequest(stack.app, 'GET', '/v1/auth/providers');
  t.is(both.status, 200);
  t.deepEqual(both.body, {
    providers: [
      { name: 'github', label: 'GitHub', url: '/v1/auth/github' },
      { name: 'google', label: 'Google', url: '/v1/auth/google' },
    ],
    local_sign_in: null,
  });
  t.deepEqual((await browserRequest(githubOnly, 'GET', '/v1/auth/providers')).body.providers, [{ name: 'github', label: 'GitHub', url: '/v1/auth/github' }]);
  const bare = (await browserRequest(developmentBare, 'GET', '/v1/auth/providers')).body;
  t.deepEqual(bare.providers, []);
  t.regex(bare.local_sign_in, /`npm run dev:idp`/);
});

/** A browser's GET on the app's socket under another Host, as when it asked for another name of the service. */
const getWithHost = (app: TestApp, path: string, host: string): Promise<{ status: number; location: string | undefined }> =>
  new Promise((resolve, reject) => {
    const request = http.request(`${app.url}${path}`, { headers: { Host: host } }, (response) => {
      response.resume();
      resolve({ status: response.statusCode ?? 0, location: response.headers.location });
    });
    request.on('error', reject);
    request.end();
  });

test('a sign-in started on another host name of the service is sent to PUBLIC_URL first, before any state is made', async (t) => {
  // PUBLIC_URL is http://service.example.test (port 80); 127.0.0.1 on the same port is another name for it.
  const elsewhere = await getWithHost(stack.app, '/v1/auth/github?from=console', '127.0.0.1');
  t.is(elsewhere.status, 302);
  t.is(elsewhere.location, `${TEST_PUBLIC_URL}/v1/auth/github?from=console`);
  const there = await getWithHost(stack.app, '/v1/auth/github', new URL(TEST_PUBLIC_URL).host);
  t.is(there.status, 302);
  t.true(there.location?.startsWith(stack.idp.url), there.location);
  // Another port is another listener (a test server, an internal address): left alone.
  t.true((await getWithHost(stack.app, '/v1/auth/github', '127.0.0.1:8081')).location?.startsWith(stack.idp.url));
});

test('the landing page offers only the configured providers, and in development says how to sign in locally', async (t) => {
  const context = await browser.newContext();
  t.teardown(() => context.close());
  const page = await context.newPage();
  await page.goto(`${githubOnly.url}/`);
  await page.getByRole('link', { name: 'Sign in with GitHub' }).waitFor();
  t.is(await page.getByRole('link', { name: /^Sign in with/ }).count(), 1);
  t.false(await page.locator('#sign-in-local').isVisible());
  t.true(await page.getByRole('link', { name: 'the API reference' }).isVisible());

  await page.goto(`${developmentBare.url}/`);
  await page.locator('#sign-in-local').waitFor({ state: 'visible' });
  t.is(await page.getByRole('link', { name: /^Sign in with/ }).count(), 0);
  t.regex((await page.locator('#sign-in-local').textContent()) ?? '', /run npm run dev:idp in the repository/);
  t.is(await page.locator('#sign-in-local code').textContent(), 'npm run dev:idp');
});
