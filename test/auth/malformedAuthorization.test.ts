import test from 'ava';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';

let app: TestApp;
let key: string;

test.before(async () => {
  app = await startTestApp();
  const account = await buildAccount(app.services.pool);
  ({ key } = await buildApiKey(app.services.pool, account.id));
});

test.after.always(async () => {
  await app?.close();
});

const HOW = 'send Authorization: Bearer <API key>, the key being bs_live_ followed by 32 letters and digits.';

const refusal = async (authorization: string): Promise<{ status: number; code: string; message: string; challenge: string | null }> => {
  const response = await fetch(`${app.url}/v1/account`, { headers: { Authorization: authorization } });
  const body = (await response.json()) as { error: { message: string; details: { code: string } } };
  return { status: response.status, code: body.error.details.code, message: body.error.message, challenge: response.headers.get('www-authenticate') };
};

test('a malformed Authorization header says how it must look, and is still 401 invalid_credentials without echoing the key', async (t) => {
  const cases: ReadonlyArray<[string, string]> = [
    [key, 'The Authorization header lacks its scheme'],
    [`Basic ${Buffer.from(`${key}:`).toString('base64')}`, 'The Authorization scheme must be Bearer (API keys are the only credential this header carries)'],
    [`Token ${key}`, 'The Authorization scheme must be Bearer (API keys are the only credential this header carries)'],
    ['Bearer', 'Bearer is not followed by a key'],
    [`Bearer  ${key}`, 'Bearer must be followed by exactly one space, then the key'],
    [`Bearer\t${key}`, 'Bearer must be followed by exactly one space, then the key'],
    [`Bearer ${key.slice(0, -1)}`, 'The API key is malformed'],
    [`Bearer bs_test_${key.slice(8)}`, 'The API key is malformed'],
  ];
  for (const [authorization, reason] of cases) {
    const answer = await refusal(authorization);
    t.is(answer.status, 401, authorization);
    t.is(answer.code, 'invalid_credentials', authorization);
    t.is(answer.message, `${reason}: ${HOW}`, authorization);
    t.false(answer.message.includes(key.slice(8)), 'the secret is never echoed');
    t.regex(answer.challenge ?? '', /^Bearer realm="api"/);
  }
});

test('a well-formed key that is unknown keeps the message about invalid, revoked or expired credentials', async (t) => {
  const answer = await refusal(`Bearer bs_live_${'A'.repeat(32)}`);
  t.is(answer.status, 401);
  t.is(answer.code, 'invalid_credentials');
  t.is(answer.message, 'The credentials are invalid, revoked or expired.');
});
