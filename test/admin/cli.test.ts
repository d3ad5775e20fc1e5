import { execFile } from 'node:child_process';
import test, { type ExecutionContext } from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { buildAccount, buildApiKey } from '../helpers/factories.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';

let app: TestApp;

test.before(async () => {
  app = await startTestApp();
});

test.after.always(async () => {
  await app?.close();
});

interface AdminRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

// Each run starts npm and Node; a few at a time keep this 2-core machine usable for everyone else.
const MAX_RUNNING = 3;
let running = 0;
const waiting: Array<() => void> = [];

const limited = async <T>(work: () => Promise<T>): Promise<T> => {
  if (running >= MAX_RUNNING) {
    // The finishing run hands its slot straight to us, so `running` already counts this one.
    await new Promise<void>((resolve) => waiting.push(resolve));
  } else {
    running += 1;
  }
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next === undefined) {
      running -= 1;
    } else {
      next();
    }
  }
};

/** The documented command line, exactly as an operator types it. */
const admin = async (args: readonly string[], databaseUrl = app.database.url): Promise<AdminRun> =>
  limited(() => spawnAdmin(args, databaseUrl));

const spawnAdmin = async (args: readonly string[], databaseUrl: string): Promise<AdminRun> =>
  new Promise((resolve) => {
    execFile(
      'npm',
      ['run', '--silent', 'admin', '--', ...args],
      { env: { ...process.env, DATABASE_URL: databaseUrl, REDIS_PREFIX: app.redisPrefix, NODE_ENV: 'test' }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        resolve({ code, stdout, stderr });
      },
    );
  });

const json = (run: AdminRun): Record<string, unknown> => {
  const lines = run.stdout.split('\n').filter((line) => line !== '');
  if (lines.length !== 1) {
    throw new Error(`expected one line of JSON, got ${JSON.stringify(run.stdout)} (stderr ${JSON.stringify(run.stderr)})`);
  }
  return JSON.parse(lines[0] ?? '') as Record<string, unknown>;
};

const assertFailed = (t: ExecutionContext, run: AdminRun, pattern: RegExp): void => {
  t.not(run.code, 0);
  t.is(run.stdout, '');
  const lines = run.stderr.split('\n').filter((line) => line !== '');
  t.is(lines.length, 1, run.stderr);
  t.regex(run.stderr, pattern);
};

const accountRow = async (id: string) =>
  app.services.pool.maybeOne(sql.type(z.object({ email: z.string(), display_name: z.string(), plan: z.string(), is_active: z.boolean() }))`
    SELECT email, display_name, plan, is_active FROM accounts WHERE id = ${id}
  `);

const unique = (): string => `op-${Math.random().toString(36).slice(2, 10)}@example.com`;

const get = async (path: string, key: string) =>
  fetch(`${app.url}${path}`, { headers: { Authorization: `Bearer ${key}` } }).then(async (response) => ({
    status: response.status,
    body: (await response.json()) as any,
  }));

test('create-account prints {id, email, plan} and creates a free account by default', async (t) => {
  const email = unique();
  const run = await admin(['create-account', '--email', email, '--name', 'Grace Hopper']);
  t.is(run.code, 0, run.stderr);
  t.is(run.stderr, '');
  const output = json(run);
  t.deepEqual(Object.keys(output).sort(), ['email', 'id', 'plan']);
  t.is(output.email, email);
  t.is(output.plan, 'free');
  t.deepEqual(await accountRow(String(output.id)), { email, display_name: 'Grace Hopper', plan: 'free', is_active: true });
});

test('create-account --plan sets the plan', async (t) => {
  const run = await admin(['create-account', '--email', unique(), '--name', 'Pro User', '--plan', 'pro']);
  t.is(run.code, 0, run.stderr);
  t.is(json(run).plan, 'pro');
});

test('create-account refuses an e-mail that already exists, whatever its case', async (t) => {
  const email = unique();
  t.is((await admin(['create-account', '--email', email, '--name', 'First'])).code, 0);
  assertFailed(t, await admin(['create-account', '--email', email.toUpperCase(), '--name', 'Second']), /already exists/);
});

test('concurrent create-account runs with one e-mail create exactly one account', async (t) => {
  const email = unique();
  const runs = await Promise.all([1, 2, 3].map((index) => admin(['create-account', '--email', email, '--name', `Racer ${index}`])));
  t.is(runs.filter((run) => run.code === 0).length, 1);
  const count = await app.services.pool.oneFirst(sql.type(z.object({ count: z.number() }))`
    SELECT count(*)::int AS count FROM accounts WHERE lower(email) = lower(${email})
  `);
  t.is(count, 1);
});

test('create-account with an unknown plan fails and creates nothing', async (t) => {
  const email = unique();
  assertFailed(t, await admin(['create-account', '--email', email, '--name', 'X', '--plan', 'platinum']), /unknown plan "platinum"/);
  const count = await app.services.pool.oneFirst(sql.type(z.object({ count: z.number() }))`
    SELECT count(*)::int AS count FROM accounts WHERE email = ${email}
  `);
  t.is(count, 0);
});

test('create-key prints {id, key, key_prefix}; the key authenticates and is listed by its prefix', async (t) => {
  const account = await buildAccount(app.services.pool);
  const run = await admin(['create-key', '--email', account.email, '--name', 'deploy']);
  t.is(run.code, 0, run.stderr);
  const output = json(run);
  t.deepEqual(Object.keys(output).sort(), ['id', 'key', 'key_prefix']);
  t.regex(String(output.key), /^bs_live_[A-Za-z0-9]{32}$/);
  t.is(output.key_prefix, String(output.key).slice(0, 12));
  const me = await get('/v1/account', String(output.key));
  t.is(me.status, 200);
  t.is(me.body.id, account.id);
  const listed = await get('/v1/api-keys', String(output.key));
  t.deepEqual(
    listed.body.map((key: { id: string; name: string; key_prefix: string }) => [key.id, key.name, key.key_prefix]),
    [[output.id, 'deploy', output.key_prefix]],
  );
});

test("create-key fails at the plan's active-key limit", async (t) => {
  const account = await buildAccount(app.services.pool);
  await buildApiKey(app.services.pool, account.id);
  assertFailed(t, await admin(['create-key', '--email', account.email, '--name', 'second']), /key limit reached/);
});

test('create-key fails for an unknown account and for a bad name', async (t) => {
  assertFailed(t, await admin(['create-key', '--email', unique(), '--name', 'k']), /no account/);
  const account = await buildAccount(app.services.pool);
  assertFailed(t, await admin(['create-key', '--email', account.email, '--name', '   ']), /--name/);
  assertFailed(t, await admin(['create-key', '--email', account.email, '--name', 'x'.repeat(101)]), /--name/);
});

test('roll-key prints the new key and when the old one expires; the old key works until then, the new one at once', async (t) => {
  const account = await buildAccount(app.services.pool);
  const old = await buildApiKey(app.services.pool, account.id, { name: 'deploy' });
  const run = await admin(['roll-key', '--email', account.email, '--key-id', old.id, '--expires-in', '600']);
  t.is(run.code, 0, run.stderr);
  const output = json(run);
  t.deepEqual(Object.keys(output).sort(), ['id', 'key', 'key_prefix', 'name', 'previous_key_expires_at', 'previous_key_id']);
  t.is(output.name, 'deploy');
  t.is(output.previous_key_id, old.id);
  t.regex(String(output.key), /^bs_live_[A-Za-z0-9]{32}$/);
  t.is((await get('/v1/account', String(output.key))).status, 200);
  t.is((await get('/v1/account', old.key)).status, 200);
  const listed = await get('/v1/api-keys', old.key);
  t.is(listed.body.find((key: { id: string }) => key.id === old.id).expires_at, output.previous_key_expires_at);
  assertFailed(t, await admin(['roll-key', '--email', account.email, '--key-id', old.id]), /already been rolled/);
  const now = await admin(['roll-key', '--email', account.email, '--key-id', String(output.id), '--expires-in', '0']);
  t.is(now.code, 0, now.stderr);
  t.is((await get('/v1/account', String(output.key))).status, 401);
});

test('roll-key fails for another account\'s key, a malformed id and a bad --expires-in', async (t) => {
  const account = await buildAccount(app.services.pool);
  const other = await buildAccount(app.services.pool);
  const foreign = await buildApiKey(app.services.pool, other.id);
  assertFailed(t, await admin(['roll-key', '--email', account.email, '--key-id', foreign.id]), /no such API key/);
  assertFailed(t, await admin(['roll-key', '--email', account.email, '--key-id', 'nope']), /--key-id/);
  assertFailed(t, await admin(['roll-key', '--email', account.email, '--key-id', foreign.id, '--expires-in', '604801']), /--expires-in/);
  assertFailed(t, await admin(['roll-key', '--email', account.email, '--key-id', foreign.id, '--expires-in', 'soon']), /--expires-in/);
});

test('a command on an e-mail shared by several accounts fails as ambiguous and changes nothing', async (t) => {
  const email = unique();
  const first = await buildAccount(app.services.pool, { email });
  await buildAccount(app.services.pool, { email });
  assertFailed(t, await admin(['deactivate', '--email', email]), /ambiguous/);
  t.is((await accountRow(first.id))?.is_active, true);
  assertFailed(t, await admin(['create-key', '--email', email, '--name', 'k']), /ambiguous/);
});

test('an e-mail shared by several accounts: the refusal names their ids and --id; --id then acts on the one named', async (t) => {
  const email = unique();
  const first = await buildAccount(app.services.pool, { email });
  const second = await buildAccount(app.services.pool, { email });
  const refused = await admin(['set-plan', '--email', email, '--plan', 'pro']);
  assertFailed(t, refused, new RegExp(`ambiguous: 2 accounts have the e-mail ${email} \\(${first.id}, ${second.id}\\); name one with --id`));
  const plan = await admin(['set-plan', '--id', second.id, '--plan', 'pro']);
  t.is(plan.code, 0, plan.stderr);
  t.deepEqual(json(plan), { id: second.id, email, plan: 'pro' });
  t.is((await accountRow(first.id))?.plan, 'free');
  const created = await admin(['create-key', '--id', second.id, '--name', 'ci']);
  t.is(created.code, 0, created.stderr);
  const { key, id: keyId } = json(created) as { key: string; id: string };
  t.is((await get('/v1/account', key)).body.id, second.id);
  const rolled = await admin(['roll-key', '--id', second.id, '--key-id', keyId, '--expires-in', '0']);
  t.is(rolled.code, 0, rolled.stderr);
  t.is((await get('/v1/account', key)).status, 401);
  for (const command of ['deactivate', 'activate'] as const) {
    const run = await admin([command, '--id', second.id]);
    t.is(run.code, 0, run.stderr);
    t.is(json(run).is_active, command === 'activate');
  }
  t.is((await accountRow(first.id))?.is_active, true);
  assertFailed(t, await admin(['activate', '--id', '00000000-0000-4000-8000-000000000000']), /no account has the id 00000000-0000-4000-8000-000000000000/);
});

test('list-accounts prints every account with an address (or all), with its providers and active keys', async (t) => {
  const email = unique();
  const first = await buildAccount(app.services.pool, { email, plan: 'pro' });
  const second = await buildAccount(app.services.pool, { email: email.toUpperCase() });
  await buildApiKey(app.services.pool, first.id);
  const run = await admin(['list-accounts', '--email', email]);
  t.is(run.code, 0, run.stderr);
  const { accounts } = json(run) as { accounts: Array<Record<string, unknown>> };
  t.deepEqual(
    accounts.map(({ id, email: address, plan, is_active, authentication_methods, active_api_keys }) => ({ id, address, plan, is_active, authentication_methods, active_api_keys })),
    [
      { id: first.id, address: email, plan: 'pro', is_active: true, authentication_methods: [], active_api_keys: 1 },
      { id: second.id, address: email.toUpperCase(), plan: 'free', is_active: true, authentication_methods: [], active_api_keys: 0 },
    ],
  );
  t.deepEqual(Object.keys(accounts[0] ?? {}).sort(), ['active_api_keys', 'authentication_methods', 'created_at', 'display_name', 'email', 'id', 'is_active', 'plan']);
  const all = json(await admin(['list-accounts'])) as { accounts: Array<{ id: string }> };
  t.true([first.id, second.id].every((id) => all.accounts.some((account) => account.id === id)));
});

test('revoke-key revokes a key of the named account at once; another account\'s key is not found', async (t) => {
  const account = await buildAccount(app.services.pool);
  const other = await buildAccount(app.services.pool);
  const { id, key } = await buildApiKey(app.services.pool, account.id);
  const foreign = await buildApiKey(app.services.pool, other.id);
  t.is((await get('/v1/account', key)).status, 200);
  const run = await admin(['revoke-key', '--email', account.email, '--key-id', id]);
  t.is(run.code, 0, run.stderr);
  t.deepEqual(json(run), { id, status: 'revoked' });
  t.is((await get('/v1/account', key)).status, 401);
  assertFailed(t, await admin(['revoke-key', '--id', account.id, '--key-id', foreign.id]), /no such API key on this account/);
  t.is((await get('/v1/account', foreign.key)).status, 200);
});

test('set-plan prints {id, email, plan} and the account reports the new plan', async (t) => {
  const account = await buildAccount(app.services.pool);
  const { key } = await buildApiKey(app.services.pool, account.id);
  const run = await admin(['set-plan', '--email', account.email, '--plan', 'enterprise']);
  t.is(run.code, 0, run.stderr);
  t.deepEqual(json(run), { id: account.id, email: account.email, plan: 'enterprise' });
  t.is((await get('/v1/account', key)).body.plan, 'enterprise');
  assertFailed(t, await admin(['set-plan', '--email', account.email, '--plan', 'nope']), /unknown plan/);
  t.is((await accountRow(account.id))?.plan, 'enterprise');
});

test('deactivate makes its keys answer 403 account_disabled; activate restores them', async (t) => {
  const account = await buildAccount(app.services.pool);
  const { key } = await buildApiKey(app.services.pool, account.id);
  const off = await admin(['deactivate', '--email', account.email]);
  t.is(off.code, 0, off.stderr);
  t.deepEqual(json(off), { id: account.id, email: account.email, is_active: false });
  const refused = await get('/v1/account', key);
  t.is(refused.status, 403);
  t.is(refused.body.error.details.code, 'account_disabled');
  const on = await admin(['activate', '--email', account.email]);
  t.is(on.code, 0, on.stderr);
  t.deepEqual(json(on), { id: account.id, email: account.email, is_active: true });
  t.is((await get('/v1/account', key)).status, 200);
});

test('deactivate, activate and set-plan reach a key the API process has cached on its very next simulation request', async (t) => {
  const account = await buildAccount(app.services.pool, { plan: 'free' });
  const { key } = await buildApiKey(app.services.pool, account.id);
  // An invalid body is answered 422 only once the key is authenticated (and, from then on, cached).
  const simulate = async (): Promise<Response> =>
    fetch(`${app.url}/v1/simulations`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ preset: 'finance', num_interactions: 0 }),
    });
  t.is((await simulate()).status, 422);
  t.is((await admin(['deactivate', '--email', account.email])).code, 0);
  t.is((await simulate()).status, 403);
  t.is((await admin(['activate', '--email', account.email])).code, 0);
  const active = await simulate();
  t.is(active.status, 422);
  t.is(active.headers.get('ratelimit-policy'), '"rpm";q=5;w=60');
  t.is((await admin(['set-plan', '--email', account.email, '--plan', 'enterprise'])).code, 0);
  t.not((await simulate()).headers.get('ratelimit-policy'), '"rpm";q=5;w=60');
});

test('activate and deactivate fail for an unknown account', async (t) => {
  assertFailed(t, await admin(['activate', '--email', unique()]), /no account/);
  assertFailed(t, await admin(['deactivate', '--email', unique()]), /no account/);
});

test('a malformed command line exits 2 with a one-line message', async (t) => {
  const bad: ReadonlyArray<readonly [readonly string[], RegExp]> = [
    [[], /no command/],
    [['frobnicate', '--email', 'a@example.com'], /unknown command/],
    [['create-account', '--name', 'No Email'], /needs --email/],
    [['create-account', '--email', 'a@example.com'], /needs --name/],
    [['set-plan', '--email', 'a@example.com'], /needs --plan/],
    [['deactivate', '--email', 'a@example.com', '--plan', 'pro'], /does not take --plan/],
    [['activate', '--email', 'a@example.com', '--force'], /--force/],
    [['activate', '--email'], /--email/],
    [['create-account', '--email', 'not-an-address', '--name', 'X'], /--email/],
    [['deactivate'], /needs the account as either --email or --id/],
    [['deactivate', '--email', 'a@example.com', '--id', '00000000-0000-4000-8000-000000000000'], /either --email or --id/],
    [['deactivate', '--id', 'nope'], /--id: not an account id/],
    [['revoke-key', '--email', 'a@example.com'], /needs --key-id/],
    [['list-accounts', '--id', '00000000-0000-4000-8000-000000000000'], /does not take --id/],
  ];
  for (const [args, pattern] of bad) {
    const run = await admin(args);
    assertFailed(t, run, pattern);
    t.is(run.code, 2, args.join(' '));
  }
});

test('an unreachable database is a one-line error that does not reveal the password', async (t) => {
  const run = await admin(['activate', '--email', 'a@example.com'], 'postgres://postgres:hunter2secret@127.0.0.1:1/nowhere');
  assertFailed(t, run, /^admin: PostgreSQL is not reachable at postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/nowhere/);
  t.false(run.stderr.includes('hunter2secret'));
});
