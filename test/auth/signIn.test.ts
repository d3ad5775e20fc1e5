import test from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { signIn, TEST_FRONTEND_URL, TEST_PUBLIC_URL } from '../helpers/signInWithIdp.ts';
import { getAccount, someone, useSignInStack } from './authFixtures.ts';

const stack = useSignInStack(test);

const SESSION_COOKIE = /^service_session=([A-Za-z0-9_-]+); Path=\/; Max-Age=604800; HttpOnly; SameSite=Lax$/;

const accountsWithEmail = async (email: string): Promise<readonly string[]> =>
  stack.app.services.pool.anyFirst(sql.type(z.object({ id: z.uuid() }))`SELECT id FROM accounts WHERE lower(email) = lower(${email}) ORDER BY created_at`);

test('a first GitHub login creates the account, sets the session cookie and lands on FRONTEND_URL/account', async (t) => {
  const person = someone({ name: 'Grace Hopper' });
  const login = await signIn(stack.app, stack.idp, 'github', person);

  t.is(login.response.status, 302);
  t.is(login.location, `${TEST_FRONTEND_URL}/account`);
  const setCookie = login.response.headers.getSetCookie().find((line) => line.startsWith('service_session='));
  t.regex(setCookie ?? '', SESSION_COOKIE);
  // The pre-login cookie is expired in the same response: nothing from before sign-in lives on.
  t.regex(login.response.headers.getSetCookie().find((line) => line.startsWith('service_oauth=')) ?? '', /^service_oauth=; path=\/v1\/auth; expires=Thu, 01 Jan 1970/);

  const account = await getAccount(stack.app, login.sessionCookie);
  t.is(account.status, 200);
  t.is(account.body.email, person.email);
  t.is(account.body.display_name, 'Grace Hopper');
  t.is(account.body.plan, 'free');
  t.deepEqual(account.body.authentication_methods, ['github']);
});

test('the session record lasts 7 days and the cookie carries its id only encrypted', async (t) => {
  const login = await signIn(stack.app, stack.idp, 'github', someone());
  const account = await getAccount(stack.app, login.sessionCookie);
  const session = await stack.app.services.pool.one(sql.type(z.object({ id: z.uuid(), lifetime_s: z.number() }))`
    SELECT id, extract(epoch FROM expires_at - created_at)::float8 AS lifetime_s FROM sessions WHERE account_id = ${account.body.id}
  `);
  t.is(session.lifetime_s, 604_800);
  const value = login.sessionCookie?.split('=')[1] ?? '';
  t.false(value.includes(session.id));
  t.false(value.includes(session.id.replaceAll('-', '')));
  t.false(Buffer.from(value, 'base64url').toString('hex').includes(session.id.replaceAll('-', '')));
});

test('a returning login finds the same account and starts a new session', async (t) => {
  const person = someone();
  const first = await signIn(stack.app, stack.idp, 'google', person);
  const second = await signIn(stack.app, stack.idp, 'google', person);
  t.truthy(first.sessionCookie);
  t.truthy(second.sessionCookie);
  t.not(first.sessionCookie, second.sessionCookie);
  const [a, b] = await Promise.all([getAccount(stack.app, first.sessionCookie), getAccount(stack.app, second.sessionCookie)]);
  t.is(a.body.id, b.body.id);
  t.deepEqual(await accountsWithEmail(person.email ?? ''), [a.body.id]);
});

test('a returning login is found by provider identity even when the provider now reports another e-mail', async (t) => {
  const person = someone();
  const first = await signIn(stack.app, stack.idp, 'github', person);
  const second = await signIn(stack.app, stack.idp, 'github', { ...person, email: `renamed-${person.email}` });
  const [a, b] = await Promise.all([getAccount(stack.app, first.sessionCookie), getAccount(stack.app, second.sessionCookie)]);
  t.is(a.body.id, b.body.id);
});

test('a second provider reporting the same verified e-mail links to the same account', async (t) => {
  const person = someone();
  const github = await signIn(stack.app, stack.idp, 'github', person);
  // Providers may differ in letter case; addresses compare case-insensitively.
  const google = await signIn(stack.app, stack.idp, 'google', { ...person, subject: `g-${person.subject}`, email: (person.email ?? '').toUpperCase() });
  const [a, b] = await Promise.all([getAccount(stack.app, github.sessionCookie), getAccount(stack.app, google.sessionCookie)]);
  t.is(a.body.id, b.body.id);
  t.deepEqual(b.body.authentication_methods, ['github', 'google']);
});

test('a second provider whose e-mail is unverified gets an account of its own', async (t) => {
  const person = someone();
  const github = await signIn(stack.app, stack.idp, 'github', person);
  const google = await signIn(stack.app, stack.idp, 'google', { ...person, subject: `g-${person.subject}`, emailVerified: false });
  const [a, b] = await Promise.all([getAccount(stack.app, github.sessionCookie), getAccount(stack.app, google.sessionCookie)]);
  t.not(a.body.id, b.body.id);
  t.deepEqual(a.body.authentication_methods, ['github']);
  t.deepEqual(b.body.authentication_methods, ['google']);
});

test('a verified second provider does not link to an account whose identity had the address unverified', async (t) => {
  const person = someone();
  const github = await signIn(stack.app, stack.idp, 'github', { ...person, emailVerified: false });
  const google = await signIn(stack.app, stack.idp, 'google', { ...person, subject: `g-${person.subject}` });
  const [a, b] = await Promise.all([getAccount(stack.app, github.sessionCookie), getAccount(stack.app, google.sessionCookie)]);
  t.not(a.body.id, b.body.id);
  t.deepEqual(b.body.authentication_methods, ['google']);
});

test('two first logins of one identity at once make one account', async (t) => {
  const person = someone();
  const logins = await Promise.all([signIn(stack.app, stack.idp, 'github', person), signIn(stack.app, stack.idp, 'github', person)]);
  const accounts = await Promise.all(logins.map((login) => getAccount(stack.app, login.sessionCookie)));
  t.is(accounts[0]?.body.id, accounts[1]?.body.id);
  t.is((await accountsWithEmail(person.email ?? '')).length, 1);
});

test('signing in again from a browser holding a session ends the old session', async (t) => {
  const person = someone();
  const first = await signIn(stack.app, stack.idp, 'github', person);
  const second = await signIn(stack.app, stack.idp, 'github', person, [first.sessionCookie ?? '']);
  t.is((await getAccount(stack.app, second.sessionCookie)).status, 200);
  const old = await getAccount(stack.app, first.sessionCookie);
  t.is(old.status, 401);
  t.is(old.body.error.details.code, 'invalid_credentials');
});

test("a login clears away the account's ended sessions, keeping live ones", async (t) => {
  const person = someone();
  const ended = await signIn(stack.app, stack.idp, 'github', person);
  const live = await signIn(stack.app, stack.idp, 'github', person);
  const accountId = (await getAccount(stack.app, live.sessionCookie)).body.id as string;
  await fetch(`${stack.app.url}/v1/auth/logout`, { method: 'POST', headers: { Cookie: ended.sessionCookie ?? '', Origin: TEST_PUBLIC_URL } });
  await stack.app.services.pool.query(sql.type(z.object({}))`
    INSERT INTO sessions (id, account_id, expires_at) VALUES (gen_random_uuid(), ${accountId}, now() - interval '1 day')
  `);
  await signIn(stack.app, stack.idp, 'github', person);
  const rows = await stack.app.services.pool.any(sql.type(z.object({ invalidated: z.boolean(), expired: z.boolean() }))`
    SELECT invalidated_at IS NOT NULL AS invalidated, expires_at <= now() AS expired FROM sessions WHERE account_id = ${accountId}
  `);
  t.is(rows.length, 2);
  t.true(rows.every((row) => !row.invalidated && !row.expired));
  t.is((await getAccount(stack.app, live.sessionCookie)).status, 200);
});
