import test, { type ExecutionContext } from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { authorizeAtIdp, followCallback, setCookieFor, signIn, startLogin, TEST_FRONTEND_URL } from '../helpers/signInWithIdp.ts';
import { getAccount, someone, useSignInStack } from './authFixtures.ts';

const stack = useSignInStack(test);

const sessionCount = async (): Promise<number> =>
  stack.app.services.pool.oneFirst(sql.type(z.object({ count: z.number() }))`SELECT count(*)::int AS count FROM sessions`);

const accountCount = async (email: string): Promise<number> =>
  stack.app.services.pool.oneFirst(sql.type(z.object({ count: z.number() }))`SELECT count(*)::int AS count FROM accounts WHERE email = ${email}`);

/** A failed callback: 302 to the frontend with the code, no session cookie, the pre-login state dropped. */
const assertFailedLogin = (t: ExecutionContext, response: Response, code: string): void => {
  t.is(response.status, 302);
  t.is(response.headers.get('location'), `${TEST_FRONTEND_URL}/account?error=${code}`);
  t.is(setCookieFor(response, 'service_session'), undefined);
  const preLogin = setCookieFor(response, 'service_oauth');
  if (preLogin !== undefined) {
    t.regex(preLogin, /^service_oauth=;/);
  }
};

test.serial('denied consent lands on /account?error=access_denied with no session and no account', async (t) => {
  const person = someone();
  const before = await sessionCount();
  const login = await signIn(stack.app, stack.idp, 'github', 'deny');
  assertFailedLogin(t, login.response, 'access_denied');
  t.is(await sessionCount(), before);
  t.is(await accountCount(person.email ?? ''), 0);
});

test.serial('a callback whose state differs from the one issued is refused with error=invalid_state', async (t) => {
  const before = await sessionCount();
  const started = await startLogin(stack.app, 'google');
  stack.idp.setOutcomeForState(started.state, someone());
  const callback = await authorizeAtIdp(started.authorizeUrl);
  callback.searchParams.set('state', `${started.state.slice(0, -1)}${started.state.endsWith('0') ? '1' : '0'}`);
  const response = await followCallback(stack.app, callback, [started.preLoginCookie]);
  assertFailedLogin(t, response, 'invalid_state');
  t.is(await sessionCount(), before);
});

test.serial('a callback from a browser that never started a login (no pre-login cookie) is refused', async (t) => {
  const started = await startLogin(stack.app, 'github');
  stack.idp.setOutcomeForState(started.state, someone());
  const callback = await authorizeAtIdp(started.authorizeUrl);
  // An attacker's own code and state, delivered to a victim's browser: login CSRF.
  const response = await followCallback(stack.app, callback, []);
  assertFailedLogin(t, response, 'invalid_state');
});

test.serial('a tampered pre-login cookie is no pending login', async (t) => {
  const started = await startLogin(stack.app, 'github');
  stack.idp.setOutcomeForState(started.state, someone());
  const callback = await authorizeAtIdp(started.authorizeUrl);
  const [name, value = ''] = started.preLoginCookie.split('=');
  const flipped = `${value.slice(0, 10)}${value[10] === 'A' ? 'B' : 'A'}${value.slice(11)}`;
  const response = await followCallback(stack.app, callback, [`${name}=${flipped}`]);
  assertFailedLogin(t, response, 'invalid_state');
});

test.serial('a login started for GitHub cannot finish on the Google callback', async (t) => {
  const started = await startLogin(stack.app, 'github');
  stack.idp.setOutcomeForState(started.state, someone());
  const callback = await authorizeAtIdp(started.authorizeUrl);
  callback.pathname = '/v1/auth/google/callback';
  const response = await followCallback(stack.app, callback, [started.preLoginCookie]);
  assertFailedLogin(t, response, 'invalid_state');
});

test.serial('replaying a finished callback does not sign in again', async (t) => {
  const started = await startLogin(stack.app, 'github');
  stack.idp.setOutcomeForState(started.state, someone());
  const callback = await authorizeAtIdp(started.authorizeUrl);
  const first = await followCallback(stack.app, callback, [started.preLoginCookie]);
  t.is(first.status, 302);
  t.truthy(setCookieFor(first, 'service_session'));
  const replay = await followCallback(stack.app, callback, [started.preLoginCookie]);
  t.is(replay.status, 302);
  t.is(setCookieFor(replay, 'service_session'), undefined);
  t.regex(replay.headers.get('location') ?? '', /\/account\?error=/);
});

test.serial('a code the provider refuses to exchange lands on error=exchange_failed', async (t) => {
  const before = await sessionCount();
  const started = await startLogin(stack.app, 'google');
  stack.idp.setOutcomeForState(started.state, someone());
  const callback = await authorizeAtIdp(started.authorizeUrl);
  callback.searchParams.set('code', 'not-a-code-the-provider-issued');
  const response = await followCallback(stack.app, callback, [started.preLoginCookie]);
  assertFailedLogin(t, response, 'exchange_failed');
  t.is(await sessionCount(), before);
});

test.serial('a provider error other than denial lands on error=provider_error', async (t) => {
  const started = await startLogin(stack.app, 'github');
  const callback = new URL('http://service.example.test/v1/auth/github/callback');
  callback.searchParams.set('state', started.state);
  callback.searchParams.set('error', 'temporarily_unavailable');
  const response = await followCallback(stack.app, callback, [started.preLoginCookie]);
  assertFailedLogin(t, response, 'provider_error');
});

test.serial('an identity without any e-mail address cannot sign in (error=email_unavailable)', async (t) => {
  const login = await signIn(stack.app, stack.idp, 'github', someone({ email: null }));
  assertFailedLogin(t, login.response, 'email_unavailable');
});

test.serial('a disabled account is not signed in (error=account_disabled)', async (t) => {
  const person = someone();
  const first = await signIn(stack.app, stack.idp, 'google', person);
  const account = await getAccount(stack.app, first.sessionCookie);
  await stack.app.services.pool.query(sql.type(z.object({}))`UPDATE accounts SET is_active = false WHERE id = ${account.body.id}`);
  const before = await sessionCount();
  const again = await signIn(stack.app, stack.idp, 'google', person);
  assertFailedLogin(t, again.response, 'account_disabled');
  t.is(await sessionCount(), before);
});

test.serial('the callback never logs the authorization code, the state or tokens', async (t) => {
  const started = await startLogin(stack.app, 'github');
  stack.idp.setOutcomeForState(started.state, someone());
  const callback = await authorizeAtIdp(started.authorizeUrl);
  const code = callback.searchParams.get('code') ?? '';
  const response = await followCallback(stack.app, callback, [started.preLoginCookie]);
  t.is(response.status, 302);
  const logs = stack.app.logs();
  t.true(code.length > 10);
  t.false(logs.includes(code));
  t.false(logs.includes(started.state));
});
