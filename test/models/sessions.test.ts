import test from 'ava';
import { browserRequest, signedIn, useSignInStack } from '../auth/authFixtures.ts';
import { TEST_PUBLIC_URL } from '../helpers/signInWithIdp.ts';
import { tinyModel } from './modelFixtures.ts';

const stack = useSignInStack(test);

const EVIL = 'https://evil.example';

test('a signed-in browser stores, reads, validates and deletes its models from its own origin', async (t) => {
  const { cookie } = await signedIn(stack);
  const put = await browserRequest(stack.app, 'PUT', '/v1/models/members', { cookie, origin: TEST_PUBLIC_URL, body: tinyModel() });
  t.is(put.status, 201);
  t.is((await browserRequest(stack.app, 'GET', '/v1/models', { cookie })).body[0].name, 'members');
  t.is((await browserRequest(stack.app, 'GET', '/v1/models/members', { cookie })).status, 200);
  const validated = await browserRequest(stack.app, 'POST', '/v1/models/validate', { cookie, origin: TEST_PUBLIC_URL, body: tinyModel() });
  t.is(validated.status, 200);
  t.true(validated.body.valid);
  t.is((await browserRequest(stack.app, 'DELETE', '/v1/models/members', { cookie, origin: TEST_PUBLIC_URL })).status, 200);
});

test('cross-origin writes with a session cookie are 403 csrf_rejected and change nothing', async (t) => {
  const { cookie } = await signedIn(stack);
  await browserRequest(stack.app, 'PUT', '/v1/models/members', { cookie, origin: TEST_PUBLIC_URL, body: tinyModel() });
  const put = await browserRequest(stack.app, 'PUT', '/v1/models/members', { cookie, origin: EVIL, body: tinyModel({ max_steps: 3 }) });
  t.is(put.status, 403);
  t.is(put.body.error.details.code, 'csrf_rejected');
  const deleted = await browserRequest(stack.app, 'DELETE', '/v1/models/members', { cookie, origin: EVIL });
  t.is(deleted.body.error.details.code, 'csrf_rejected');
  const validated = await browserRequest(stack.app, 'POST', '/v1/models/validate', { cookie, body: tinyModel() });
  t.is(validated.body.error.details.code, 'csrf_rejected');
  const kept = await browserRequest(stack.app, 'GET', '/v1/models/members', { cookie });
  t.is(kept.status, 200);
  t.is(kept.body.version, 1);
});
