import test from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { TEST_PUBLIC_URL } from '../helpers/signInWithIdp.ts';
import { browserRequest, getAccount, type JsonResponse, signedIn, useSignInStack } from './authFixtures.ts';

const stack = useSignInStack(test);

const EVIL = 'https://evil.example';

const keyCount = async (accountId: string): Promise<number> =>
  stack.app.services.pool.oneFirst(sql.type(z.object({ count: z.number() }))`SELECT count(*)::int AS count FROM api_keys WHERE account_id = ${accountId}`);

const isCsrfRejection = (response: JsonResponse): boolean => response.status === 403 && response.body?.error?.details?.code === 'csrf_rejected';

test('a cross-origin POST with a session cookie is 403 csrf_rejected and changes nothing', async (t) => {
  const { cookie, accountId } = await signedIn(stack);
  const response = await browserRequest(stack.app, 'POST', '/v1/api-keys', { cookie, origin: EVIL, body: { name: 'stolen' } });
  t.true(isCsrfRejection(response));
  t.is(response.body.error.status_code, 403);
  t.is(await keyCount(accountId), 0);
});

test('the same POST from the service\'s own origin works', async (t) => {
  const { cookie, accountId } = await signedIn(stack);
  const response = await browserRequest(stack.app, 'POST', '/v1/api-keys', { cookie, origin: TEST_PUBLIC_URL, body: { name: 'mine' } });
  t.is(response.status, 201);
  t.is(await keyCount(accountId), 1);
});

test('without Origin, a same-origin Referer is accepted and a foreign one refused', async (t) => {
  const { cookie } = await signedIn(stack);
  const foreign = await browserRequest(stack.app, 'POST', '/v1/api-keys', { cookie, referer: `${EVIL}/page`, body: { name: 'x' } });
  t.true(isCsrfRejection(foreign));
  const own = await browserRequest(stack.app, 'POST', '/v1/api-keys', { cookie, referer: `${TEST_PUBLIC_URL}/account?tab=keys`, body: { name: 'x' } });
  t.is(own.status, 201);
});

test('a cookie-authenticated POST with neither Origin nor Referer is refused', async (t) => {
  const { cookie } = await signedIn(stack);
  const response = await browserRequest(stack.app, 'POST', '/v1/api-keys', { cookie, body: { name: 'x' } });
  t.true(isCsrfRejection(response));
});

test('look-alike origins are foreign: another port, scheme or host, and the opaque "null"', async (t) => {
  const { cookie } = await signedIn(stack);
  for (const origin of ['http://service.example.test:8080', 'https://service.example.test', 'http://evil.service.example.test', 'null']) {
    const response = await browserRequest(stack.app, 'POST', '/v1/api-keys', { cookie, origin, body: { name: 'x' } });
    t.true(isCsrfRejection(response), origin);
  }
});

test('a cross-origin DELETE with a session cookie is refused and the key stays active', async (t) => {
  const { cookie } = await signedIn(stack);
  const created = await browserRequest(stack.app, 'POST', '/v1/api-keys', { cookie, origin: TEST_PUBLIC_URL, body: { name: 'keep' } });
  const response = await browserRequest(stack.app, 'DELETE', `/v1/api-keys/${created.body.id}`, { cookie, origin: EVIL });
  t.true(isCsrfRejection(response));
  const listed = await browserRequest(stack.app, 'GET', '/v1/api-keys', { cookie });
  t.is(listed.body[0].is_active, true);
});

test('a cross-origin simulation request with a session cookie is refused before anything runs', async (t) => {
  const { cookie } = await signedIn(stack);
  const response = await browserRequest(stack.app, 'POST', '/v1/simulations', { cookie, origin: EVIL, body: { preset: 'finance', num_interactions: 5 } });
  t.true(isCsrfRejection(response));
});

test('a cross-origin logout does not end the session', async (t) => {
  const { cookie } = await signedIn(stack);
  const response = await browserRequest(stack.app, 'POST', '/v1/auth/logout', { cookie, origin: EVIL });
  t.true(isCsrfRejection(response));
  t.is((await getAccount(stack.app, cookie)).status, 200);
});

test('reads are not state-changing: a cross-origin GET with a session cookie is answered', async (t) => {
  const { cookie } = await signedIn(stack);
  const response = await browserRequest(stack.app, 'GET', '/v1/account', { cookie, origin: EVIL });
  t.is(response.status, 200);
});

test('API-key requests are exempt from the origin check', async (t) => {
  const { cookie } = await signedIn(stack);
  const created = await browserRequest(stack.app, 'POST', '/v1/api-keys', { cookie, origin: TEST_PUBLIC_URL, body: { name: 'script' } });
  const response = await browserRequest(stack.app, 'DELETE', `/v1/api-keys/${created.body.id}`, {
    origin: EVIL,
    headers: { Authorization: `Bearer ${created.body.key}` },
  });
  t.is(response.status, 200);
  t.deepEqual(response.body, { status: 'revoked', id: created.body.id });
});

test('a session can roll its key from its own origin; a cross-origin roll is refused and rolls nothing', async (t) => {
  const { cookie, accountId } = await signedIn(stack);
  const created = await browserRequest(stack.app, 'POST', '/v1/api-keys', { cookie, origin: TEST_PUBLIC_URL, body: { name: 'rotate' } });
  const foreign = await browserRequest(stack.app, 'POST', `/v1/api-keys/${created.body.id}/roll`, { cookie, origin: EVIL, body: { expires_in: 0 } });
  t.true(isCsrfRejection(foreign));
  t.is(await keyCount(accountId), 1);
  const own = await browserRequest(stack.app, 'POST', `/v1/api-keys/${created.body.id}/roll`, { cookie, origin: TEST_PUBLIC_URL, body: { expires_in: 0 } });
  t.is(own.status, 201);
  t.is(own.body.name, 'rotate');
  t.is(await keyCount(accountId), 2);
});
