import test from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { signIn, TEST_FRONTEND_URL } from '../helpers/signInWithIdp.ts';
import { getAccount, someone, useSignInStack } from './authFixtures.ts';

// An account made with `admin create-account` has no linked provider until someone signs in to it.
const stack = useSignInStack(test);

const accountIdsWithEmail = async (email: string): Promise<readonly string[]> =>
  stack.app.services.pool.anyFirst(sql.type(z.object({ id: z.uuid() }))`SELECT id FROM accounts WHERE lower(email) = lower(${email}) ORDER BY created_at, id`);

test("the first sign-in whose provider reports the admin-made account's address verified signs in to that account, keys and plan included", async (t) => {
  const person = someone();
  const made = await buildAccount(stack.app.services.pool, { email: person.email ?? '', plan: 'pro' });
  const { key } = await buildApiKey(stack.app.services.pool, made.id);
  // Providers may spell the address in another case.
  const login = await signIn(stack.app, stack.idp, 'google', { ...person, email: (person.email ?? '').toUpperCase() });
  t.is(login.location, `${TEST_FRONTEND_URL}/account`);
  const account = await getAccount(stack.app, login.sessionCookie);
  t.is(account.body.id, made.id);
  t.is(account.body.plan, 'pro');
  t.deepEqual(account.body.authentication_methods, ['google']);
  t.deepEqual(await accountIdsWithEmail(person.email ?? ''), [made.id]);
  // The key the operator made still works, on the same account.
  const byKey = await fetch(`${stack.app.url}/v1/account`, { headers: { Authorization: `Bearer ${key}` } });
  t.is(((await byKey.json()) as { id: string }).id, made.id);
  // A second provider with the same verified address joins the same account as before.
  const second = await signIn(stack.app, stack.idp, 'github', { ...person, subject: `gh-${person.subject}` });
  t.is((await getAccount(stack.app, second.sessionCookie)).body.id, made.id);
});

test('an unverified address never signs in to an admin-made account: it gets an account of its own, and the made account stays unclaimed', async (t) => {
  const person = someone();
  const made = await buildAccount(stack.app.services.pool, { email: person.email ?? '' });
  const unverified = await signIn(stack.app, stack.idp, 'github', { ...person, emailVerified: false });
  const other = await getAccount(stack.app, unverified.sessionCookie);
  t.is(other.status, 200);
  t.not(other.body.id, made.id);
  t.deepEqual(await accountIdsWithEmail(person.email ?? ''), [made.id, other.body.id]);
  // The made account is still there for the person who can prove the address.
  const verified = await signIn(stack.app, stack.idp, 'google', { ...person, subject: `g-${person.subject}` });
  t.is((await getAccount(stack.app, verified.sessionCookie)).body.id, made.id);
});

test('an account that already has a sign-in is not claimed by address alone: a verified address of another provider links only by the two-provider rule', async (t) => {
  const person = someone();
  // Someone signed in with an unverified address first: that account is theirs, not the address owner's.
  const first = await signIn(stack.app, stack.idp, 'github', { ...person, emailVerified: false });
  const firstId = (await getAccount(stack.app, first.sessionCookie)).body.id as string;
  const verified = await signIn(stack.app, stack.idp, 'google', { ...person, subject: `g-${person.subject}` });
  t.not((await getAccount(stack.app, verified.sessionCookie)).body.id, firstId);
});

test('a deactivated admin-made account is not signed in to, and gains no provider', async (t) => {
  const person = someone();
  const made = await buildAccount(stack.app.services.pool, { email: person.email ?? '', is_active: false });
  const login = await signIn(stack.app, stack.idp, 'github', person);
  t.is(login.location, `${TEST_FRONTEND_URL}/account?error=account_disabled`);
  t.is(login.sessionCookie, undefined);
  const identities = await stack.app.services.pool.oneFirst(sql.type(z.object({ count: z.number() }))`SELECT count(*)::int AS count FROM identities WHERE account_id = ${made.id}`);
  t.is(identities, 0);
});
