import test from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { signIn, TEST_PUBLIC_URL } from '../helpers/signInWithIdp.ts';
import { browserRequest, getAccount, signedIn, someone, useSignInStack } from './authFixtures.ts';

const stack = useSignInStack(test);

const CLEARED_COOKIE = 'service_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax';

const logout = (cookie: string | undefined, origin: string | undefined = TEST_PUBLIC_URL) =>
  browserRequest(stack.app, 'POST', '/v1/auth/logout', { cookie, ...(origin === undefined ? {} : { origin }) });

test('a session cookie authenticates GET /v1/account', async (t) => {
  const { cookie, accountId } = await signedIn(stack);
  const response = await getAccount(stack.app, cookie);
  t.is(response.status, 200);
  t.is(response.body.id, accountId);
});

test('a tampered session cookie is 401 invalid_credentials', async (t) => {
  const { cookie } = await signedIn(stack);
  const [name, value = ''] = cookie.split('=');
  // Flip one bit of the ciphertext, and separately of the authentication tag.
  for (const position of [14, value.length - 3]) {
    const flipped = `${value.slice(0, position)}${value[position] === 'A' ? 'B' : 'A'}${value.slice(position + 1)}`;
    const response = await getAccount(stack.app, `${name}=${flipped}`);
    t.is(response.status, 401);
    t.is(response.body.error.details.code, 'invalid_credentials');
  }
  for (const garbage of ['x', 'not-a-sealed-value', `${value}AAAA`, value.slice(0, 20)]) {
    const response = await getAccount(stack.app, `${name}=${garbage}`);
    t.is(response.status, 401, garbage);
    t.is(response.body.error.details.code, 'invalid_credentials');
  }
});

test('a 401 for a dead session cookie also tells the browser to drop it', async (t) => {
  const response = await getAccount(stack.app, 'service_session=garbage');
  t.is(response.status, 401);
  t.is(response.headers.getSetCookie().find((line) => line.startsWith('service_session=')), CLEARED_COOKIE);
});

test('an expired session is 401 invalid_credentials', async (t) => {
  const { cookie, accountId } = await signedIn(stack);
  await stack.app.services.pool.query(sql.type(z.object({}))`
    UPDATE sessions SET expires_at = now() - interval '1 second' WHERE account_id = ${accountId}
  `);
  const response = await getAccount(stack.app, cookie);
  t.is(response.status, 401);
  t.is(response.body.error.details.code, 'invalid_credentials');
});

test('a session is valid up to its expiry', async (t) => {
  const { cookie, accountId } = await signedIn(stack);
  await stack.app.services.pool.query(sql.type(z.object({}))`
    UPDATE sessions SET created_at = now() - interval '7 days' + interval '1 minute', expires_at = now() + interval '1 minute'
    WHERE account_id = ${accountId}
  `);
  t.is((await getAccount(stack.app, cookie)).status, 200);
});

test('logout answers 200 {status:"logged_out"}, clears the cookie and invalidates the record', async (t) => {
  const { cookie, accountId } = await signedIn(stack);
  const response = await logout(cookie);
  t.is(response.status, 200);
  t.deepEqual(response.body, { status: 'logged_out' });
  t.is(response.headers.get('cache-control'), 'no-store');
  t.is(response.headers.getSetCookie().find((line) => line.startsWith('service_session=')), CLEARED_COOKIE);
  const invalidated = await stack.app.services.pool.oneFirst(sql.type(z.object({ invalidated: z.boolean() }))`
    SELECT invalidated_at IS NOT NULL AS invalidated FROM sessions WHERE account_id = ${accountId}
  `);
  t.true(invalidated);
});

test('replaying the cookie after logout is 401 invalid_credentials', async (t) => {
  const { cookie } = await signedIn(stack);
  t.is((await logout(cookie)).status, 200);
  const response = await getAccount(stack.app, cookie);
  t.is(response.status, 401);
  t.is(response.body.error.details.code, 'invalid_credentials');
});

test('logout ends only its own session', async (t) => {
  const person = someone();
  const laptop = await signIn(stack.app, stack.idp, 'google', person);
  const phone = await signIn(stack.app, stack.idp, 'google', person);
  t.is((await logout(laptop.sessionCookie)).status, 200);
  t.is((await getAccount(stack.app, laptop.sessionCookie)).status, 401);
  t.is((await getAccount(stack.app, phone.sessionCookie)).status, 200);
});

test('logout without a session, or with a dead one, still answers 200 and clears the cookie', async (t) => {
  const { cookie } = await signedIn(stack);
  await logout(cookie);
  for (const sent of [undefined, 'service_session=garbage', cookie]) {
    const response = await logout(sent, undefined);
    t.is(response.status, 200);
    t.deepEqual(response.body, { status: 'logged_out' });
    t.is(response.headers.getSetCookie().find((line) => line.startsWith('service_session=')), CLEARED_COOKIE);
  }
});

test('a session of a disabled account is 403 account_disabled', async (t) => {
  const { cookie, accountId } = await signedIn(stack);
  await stack.app.services.pool.query(sql.type(z.object({}))`UPDATE accounts SET is_active = false WHERE id = ${accountId}`);
  const response = await getAccount(stack.app, cookie);
  t.is(response.status, 403);
  t.is(response.body.error.details.code, 'account_disabled');
});

test('an Authorization header is judged alone: a session cookie beside a bad key does not help', async (t) => {
  const { cookie } = await signedIn(stack);
  const response = await browserRequest(stack.app, 'GET', '/v1/account', { cookie, headers: { Authorization: 'Bearer bs_live_wrong' } });
  t.is(response.status, 401);
  t.is(response.body.error.details.code, 'invalid_credentials');
});

test('a request with an empty Authorization header is judged by it alone, not by its valid cookie', async (t) => {
  const { cookie } = await signedIn(stack);
  t.is((await getAccount(stack.app, cookie)).status, 200);
  const response = await fetch(`${stack.app.url}/v1/account`, { headers: { Cookie: cookie, Authorization: '' } });
  t.is(response.status, 401);
  t.is(((await response.json()) as any).error.details.code, 'invalid_credentials');
});
