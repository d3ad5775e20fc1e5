import test from 'ava';
import { signIn, signInEnv, TEST_PUBLIC_URL } from '../helpers/signInWithIdp.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { startTestIdp, type TestIdp } from '../helpers/startTestIdp.ts';
import { browserRequest, someone } from './authFixtures.ts';

let idp: TestIdp;
let app: TestApp;
/** The same service with no OAuth client configured at all. */
let unconfigured: TestApp;

test.before(async () => {
  idp = await startTestIdp();
  app = await startTestApp({ env: signInEnv(idp) });
  unconfigured = await startTestApp({ database: app.database, redisPrefix: app.redisPrefix });
});

test.after.always(async () => {
  await unconfigured?.close();
  await app?.close();
  await idp?.stop();
});

test('GET /v1/auth/github redirects to the provider with state, PKCE S256 and the callback on PUBLIC_URL', async (t) => {
  const response = await fetch(`${app.url}/v1/auth/github`, { redirect: 'manual' });
  t.is(response.status, 302);
  const location = new URL(response.headers.get('location') ?? '');
  t.is(`${location.origin}${location.pathname}`, `${idp.url}/authorize`);
  const query = Object.fromEntries(location.searchParams);
  t.is(query.client_id, idp.env.OAUTH_GITHUB_CLIENT_ID);
  t.is(query.response_type, 'code');
  t.is(query.redirect_uri, `${TEST_PUBLIC_URL}/v1/auth/github/callback`);
  t.is(query.scope, 'read:user user:email');
  t.regex(query.state ?? '', /^[0-9a-f]{40}$/);
  t.is(query.code_challenge_method, 'S256');
  t.regex(query.code_challenge ?? '', /^[A-Za-z0-9_-]{43}$/);
  // The short-lived pre-login cookie holds state and verifier, sealed, and only /v1/auth ever sees it.
  const preLogin = response.headers.getSetCookie().find((line) => line.startsWith('service_oauth=')) ?? '';
  t.regex(preLogin, /^service_oauth=[A-Za-z0-9_-]+; path=\/v1\/auth; expires=[^;]+; samesite=lax; httponly$/);
  t.false(preLogin.includes(query.state ?? 'missing'));
  t.is(response.headers.getSetCookie().find((line) => line.startsWith('service_session=')), undefined);
});

test('GET /v1/auth/google asks for openid e-mail and profile with a nonce', async (t) => {
  const response = await fetch(`${app.url}/v1/auth/google`, { redirect: 'manual' });
  t.is(response.status, 302);
  const query = new URL(response.headers.get('location') ?? '').searchParams;
  t.is(query.get('redirect_uri'), `${TEST_PUBLIC_URL}/v1/auth/google/callback`);
  t.is(query.get('scope'), 'openid email profile');
  t.regex(query.get('nonce') ?? '', /^[0-9a-f]{40}$/);
  t.is(query.get('code_challenge_method'), 'S256');
});

test('each login start gets a fresh state', async (t) => {
  const states = await Promise.all(
    [1, 2, 3].map(async () => {
      const response = await fetch(`${app.url}/v1/auth/github`, { redirect: 'manual' });
      return new URL(response.headers.get('location') ?? '').searchParams.get('state');
    }),
  );
  t.is(new Set(states).size, 3);
});

test('an unknown provider is 404 provider_not_found, at the start and at the callback', async (t) => {
  for (const path of ['/v1/auth/facebook', '/v1/auth/facebook/callback', '/v1/auth/GitHub', '/v1/auth/github%2F..']) {
    const response = await browserRequest(app, 'GET', path);
    t.is(response.status, 404, path);
    t.is(response.body.error.details.code, 'provider_not_found', path);
  }
});

test('a provider without a client id answers 503 service_unavailable naming the variable to set', async (t) => {
  for (const [provider, variable] of [
    ['github', 'OAUTH_GITHUB_CLIENT_ID'],
    ['google', 'OAUTH_GOOGLE_CLIENT_ID'],
  ] as const) {
    for (const path of [`/v1/auth/${provider}`, `/v1/auth/${provider}/callback?code=x&state=y`]) {
      const response = await browserRequest(unconfigured, 'GET', path);
      t.is(response.status, 503, path);
      t.is(response.body.error.details.code, 'service_unavailable');
      t.true(response.body.error.message.includes(variable));
      t.is(typeof response.body.error.details.retry_after, 'number');
      t.is(response.headers.get('retry-after'), String(response.body.error.details.retry_after));
    }
  }
});

test('wrong methods on the auth paths are 405 with Allow', async (t) => {
  const logout = await browserRequest(app, 'GET', '/v1/auth/logout');
  t.is(logout.status, 405);
  t.is(logout.headers.get('allow'), 'POST');
  const start = await browserRequest(app, 'POST', '/v1/auth/github');
  t.is(start.status, 405);
  t.regex(start.headers.get('allow') ?? '', /GET/);
});

test('in production the session and pre-login cookies are Secure', async (t) => {
  const production = await startTestApp({
    database: app.database,
    redisPrefix: app.redisPrefix,
    env: signInEnv(idp, { NODE_ENV: 'production', SESSION_SECRET: 'a-production-secret-of-at-least-32-characters' }),
  });
  t.teardown(() => production.close());
  const started = await fetch(`${production.url}/v1/auth/google`, { redirect: 'manual' });
  t.regex(started.headers.getSetCookie().find((line) => line.startsWith('service_oauth=')) ?? '', /; secure; httponly$/);
  const login = await signIn(production, idp, 'google', someone());
  t.regex(
    login.response.headers.getSetCookie().find((line) => line.startsWith('service_session=')) ?? '',
    /^service_session=[A-Za-z0-9_-]+; Path=\/; Max-Age=604800; HttpOnly; SameSite=Lax; Secure$/,
  );
});

test('a session cookie sealed under another SESSION_SECRET is no session', async (t) => {
  const other = await startTestApp({
    database: app.database,
    redisPrefix: app.redisPrefix,
    env: signInEnv(idp, { SESSION_SECRET: 'another-secret-entirely-but-also-32-characters-long' }),
  });
  t.teardown(() => other.close());
  const login = await signIn(other, idp, 'github', someone());
  t.is((await browserRequest(other, 'GET', '/v1/account', { cookie: login.sessionCookie })).status, 200);
  const elsewhere = await browserRequest(app, 'GET', '/v1/account', { cookie: login.sessionCookie });
  t.is(elsewhere.status, 401);
  t.is(elsewhere.body.error.details.code, 'invalid_credentials');
});
