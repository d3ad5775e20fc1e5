import test from 'ava';
import { buildCaller } from '../helpers/limitFixtures.ts';
import type { TestApp } from '../helpers/startTestApp.ts';
import { useFileStack } from '../helpers/useFileStack.ts';
import { call, tinyModel } from './modelFixtures.ts';

let app: TestApp;
useFileStack(test, (started) => {
  app = started;
});

const caller = (maxModels = 10) => buildCaller(app.services.pool, { max_models: maxModels });

test('PUT of a new name is 201 with version 1, its digest, definition, warnings and catalog', async (t) => {
  const me = await caller();
  const put = await call(app, 'PUT', '/v1/models/members', me.key, { body: tinyModel() });
  t.is(put.status, 201, put.text);
  t.is(put.headers.get('cache-control'), 'no-store');
  t.like(put.body, { name: 'members', version: 1 });
  t.regex(put.body.digest, /^sha256:[0-9a-f]{64}$/);
  t.truthy(Date.parse(put.body.created_at));
  t.deepEqual(Object.keys(put.body).sort(), ['catalog', 'created_at', 'definition', 'digest', 'name', 'version', 'warnings']);
  t.is(put.body.definition.description, tinyModel().description);
  t.deepEqual(put.body.catalog.supported_profiles, ['steady', 'shaky']);
  t.is(put.body.catalog.default_profile, 'steady');
  t.deepEqual(put.body.catalog.supported_states, ['Active', 'Lapsed', 'Gone']);
  t.deepEqual(
    put.body.catalog.record_fields.map((field: { name: string }) => field.name),
    ['sequence_id', 'interaction_id', 'state', 'balance', 'visits', 'channel', 'scenario_event'],
  );
  t.deepEqual(
    put.body.catalog.scenario_events.map((event: { type: string }) => event.type),
    ['outage'],
  );
  t.true(put.body.catalog.engine_versions.every((version: string) => Number(version.split('.')[0]) >= 3));
});

test('the same definition again (keys in another order) is 200 with the same version; a changed one is version 2', async (t) => {
  const me = await caller();
  const first = await call(app, 'PUT', '/v1/models/members', me.key, { body: tinyModel() });
  const reordered = Object.fromEntries(Object.entries(tinyModel()).reverse());
  const same = await call(app, 'PUT', '/v1/models/members', me.key, { body: reordered });
  t.is(same.status, 200);
  t.like(same.body, { version: 1, digest: first.body.digest, created_at: first.body.created_at });
  const changed = await call(app, 'PUT', '/v1/models/members', me.key, { body: tinyModel({ max_steps: 41 }) });
  t.is(changed.status, 201);
  t.is(changed.body.version, 2);
  t.not(changed.body.digest, first.body.digest);
  // Versions never change: version 1 is still the first definition; the name's latest is 2.
  const one = await call(app, 'GET', '/v1/models/members/versions/1', me.key);
  t.is(one.status, 200);
  t.like(one.body, { version: 1, digest: first.body.digest });
  t.is(one.body.definition.max_steps, 40);
  const latest = await call(app, 'GET', '/v1/models/members', me.key);
  t.like(latest.body, { version: 2, digest: changed.body.digest });
  // Back to the first definition: a new version (3), equal by value to version 1 but not the latest.
  const back = await call(app, 'PUT', '/v1/models/members', me.key, { body: tinyModel() });
  t.is(back.status, 201);
  t.like(back.body, { version: 3, digest: first.body.digest });
});

test('GET /v1/models lists the latest version of each, newest first, as summaries', async (t) => {
  const me = await caller();
  t.deepEqual((await call(app, 'GET', '/v1/models', me.key)).body, []);
  await call(app, 'PUT', '/v1/models/alpha', me.key, { body: tinyModel() });
  await call(app, 'PUT', '/v1/models/beta', me.key, { body: tinyModel({ description: 'Beta.' }) });
  const alpha2 = await call(app, 'PUT', '/v1/models/alpha', me.key, { body: tinyModel({ description: 'Alpha, again.' }) });
  const list = await call(app, 'GET', '/v1/models', me.key);
  t.is(list.status, 200);
  t.deepEqual(list.body, [
    { name: 'alpha', version: 2, digest: alpha2.body.digest, created_at: alpha2.body.created_at, description: 'Alpha, again.' },
    { name: 'beta', version: 1, digest: list.body[1].digest, created_at: list.body[1].created_at, description: 'Beta.' },
  ]);
});

test('a definition with problems is 422 validation_failed with every issue and its path, and nothing is stored', async (t) => {
  const me = await caller();
  const bad = tinyModel({
    initial: 'Actve',
    fields: [{ name: 'balance', type: 'number', value: 'carried + nosuch' }],
    surprise: true,
  });
  const put = await call(app, 'PUT', '/v1/models/broken', me.key, { body: bad });
  t.is(put.status, 422, put.text);
  t.is(put.body.error.details.code, 'validation_failed');
  const paths = put.body.error.details.issues.map((issue: { path: string }) => issue.path);
  t.true(paths.includes('initial'), paths.join(', '));
  t.true(paths.includes('fields[0].value'), paths.join(', '));
  t.true(paths.includes('surprise'), paths.join(', '));
  t.is((await call(app, 'GET', '/v1/models/broken', me.key)).status, 404);
});

test('a model name must match the pattern and may not be a preset name or alias (422)', async (t) => {
  const me = await caller();
  for (const name of ['Upper', '9lives', 'finance', 'mobile', 'mobile_app', 'a'.repeat(41)]) {
    const put = await call(app, 'PUT', `/v1/models/${name}`, me.key, { body: tinyModel() });
    t.is(put.status, 422, name);
    t.is(put.body.error.details.issues[0].path, 'name', name);
  }
  // A bad name and a bad definition: both reported at once.
  const both = await call(app, 'PUT', '/v1/models/Bad', me.key, { body: tinyModel({ initial: 'Actve' }) });
  t.deepEqual(
    both.body.error.details.issues.map((issue: { path: string }) => issue.path),
    ['name', 'initial'],
  );
});

test('a definition over 64 KiB is 413 payload_too_large; one over 16 KiB is taken', async (t) => {
  const me = await caller();
  const large = tinyModel({ description: 'x'.repeat(400), padding: 'y'.repeat(70 * 1024) });
  const refused = await call(app, 'PUT', '/v1/models/large', me.key, { body: large });
  t.is(refused.status, 413);
  t.is(refused.body.error.details.code, 'payload_too_large');
  // 20 KiB of fields is past the 16 KiB of other bodies and well within a definition's 64 KiB.
  const fields = Array.from({ length: 60 }, (_, index) => ({ name: `f${index}`, type: 'number', value: 'uniform(0, 1)', description: 'z'.repeat(300) }));
  const taken = await call(app, 'PUT', '/v1/models/wide', me.key, { body: tinyModel({ fields }) });
  t.true(JSON.stringify(tinyModel({ fields })).length > 16 * 1024);
  t.is(taken.status, 201, taken.text);
});

test("another account's model, an unknown one, an unknown version and a deleted one are all 404 model_not_found", async (t) => {
  const me = await caller();
  const other = await caller();
  await call(app, 'PUT', '/v1/models/private', me.key, { body: tinyModel() });
  for (const path of ['/v1/models/private', '/v1/models/private/versions/1']) {
    const answer = await call(app, 'GET', path, other.key);
    t.is(answer.status, 404, path);
    t.is(answer.body.error.details.code, 'model_not_found');
  }
  t.deepEqual((await call(app, 'GET', '/v1/models', other.key)).body, []);
  t.is((await call(app, 'DELETE', '/v1/models/private', other.key)).status, 404);
  t.is((await call(app, 'GET', '/v1/models/private', me.key)).status, 200, 'the other account could not delete it');
  for (const path of ['/v1/models/nosuch', '/v1/models/private/versions/2', '/v1/models/private/versions/0', '/v1/models/private/versions/x']) {
    t.is((await call(app, 'GET', path, me.key)).body?.error?.details?.code, 'model_not_found', path);
  }
  // Another account may use the same name for a model of its own.
  t.is((await call(app, 'PUT', '/v1/models/private', other.key, { body: tinyModel({ max_steps: 5 }) })).status, 201);
});

test('DELETE is 200 {status, name}; the model is gone from every read; the name can be taken again at the next version', async (t) => {
  const me = await caller();
  await call(app, 'PUT', '/v1/models/doomed', me.key, { body: tinyModel() });
  const deleted = await call(app, 'DELETE', '/v1/models/doomed', me.key);
  t.is(deleted.status, 200);
  t.deepEqual(deleted.body, { status: 'deleted', name: 'doomed' });
  t.is((await call(app, 'GET', '/v1/models/doomed', me.key)).status, 404);
  t.is((await call(app, 'GET', '/v1/models/doomed/versions/1', me.key)).status, 404);
  t.deepEqual((await call(app, 'GET', '/v1/models', me.key)).body, []);
  t.is((await call(app, 'DELETE', '/v1/models/doomed', me.key)).body.error.details.code, 'model_not_found');
  const again = await call(app, 'PUT', '/v1/models/doomed', me.key, { body: tinyModel() });
  t.is(again.status, 201);
  // Version 1 belongs to the deleted model's recorded runs forever: the new one is version 2.
  t.is(again.body.version, 2);
});

test('a new name beyond max_models is 403 model_limit_reached; a new version of an existing name and a name freed by DELETE fit', async (t) => {
  const me = await caller(2);
  t.is((await call(app, 'PUT', '/v1/models/one', me.key, { body: tinyModel() })).status, 201);
  t.is((await call(app, 'PUT', '/v1/models/two', me.key, { body: tinyModel() })).status, 201);
  const refused = await call(app, 'PUT', '/v1/models/three', me.key, { body: tinyModel() });
  t.is(refused.status, 403);
  t.is(refused.body.error.details.code, 'model_limit_reached');
  t.is(refused.body.error.details.limit, 2);
  t.is((await call(app, 'PUT', '/v1/models/two', me.key, { body: tinyModel({ max_steps: 7 }) })).status, 201);
  await call(app, 'DELETE', '/v1/models/one', me.key);
  t.is((await call(app, 'PUT', '/v1/models/three', me.key, { body: tinyModel() })).status, 201);
});

test('many concurrent PUTs of new names never exceed max_models', async (t) => {
  const me = await caller(3);
  const answers = await Promise.all(
    Array.from({ length: 12 }, (_, index) => call(app, 'PUT', `/v1/models/racer_${index}`, me.key, { body: tinyModel() })),
  );
  t.is(answers.filter((answer) => answer.status === 201).length, 3);
  t.is(answers.filter((answer) => answer.status === 403 && answer.body.error.details.code === 'model_limit_reached').length, 9);
  t.is((await call(app, 'GET', '/v1/models', me.key)).body.length, 3);
});

test('concurrent PUTs of one name take distinct versions', async (t) => {
  const me = await caller();
  const answers = await Promise.all(Array.from({ length: 6 }, (_, index) => call(app, 'PUT', '/v1/models/busy', me.key, { body: tinyModel({ max_steps: 10 + index }) })));
  t.true(answers.every((answer) => answer.status === 201));
  t.deepEqual(answers.map((answer) => answer.body.version).sort((a: number, b: number) => a - b), [1, 2, 3, 4, 5, 6]);
});

test('POST /v1/models/validate answers valid, issues, warnings and a sample of 20 records with a summary, storing nothing', async (t) => {
  const me = await caller();
  const valid = await call(app, 'POST', '/v1/models/validate', me.key, { body: tinyModel() });
  t.is(valid.status, 200, valid.text);
  t.is(valid.body.valid, true);
  t.deepEqual(valid.body.issues, []);
  t.is(valid.body.sample.records.length, 20);
  t.deepEqual(Object.keys(valid.body.sample.records[0]).slice(0, 4), ['sequence_id', 'interaction_id', 'event_time', 'state']);
  t.is(valid.body.sample.summary.records, 10_000);
  const shares = Object.values(valid.body.sample.summary.states as Record<string, number>);
  t.true(Math.abs(shares.reduce((sum, share) => sum + share, 0) - 1) < 1e-9);
  t.deepEqual(Object.keys(valid.body.sample.summary.fields).sort(), ['balance', 'channel', 'visits']);
  t.deepEqual((await call(app, 'GET', '/v1/models', me.key)).body, []);

  const invalid = await call(app, 'POST', '/v1/models/validate', me.key, { body: tinyModel({ states: [] }) });
  t.is(invalid.status, 200);
  t.is(invalid.body.valid, false);
  t.true(invalid.body.issues.length > 0);
  t.is(invalid.body.sample, null);
});

test('validate reports warnings: an unreachable state and an unused param', async (t) => {
  const me = await caller();
  const body = tinyModel({
    states: ['Active', 'Lapsed', 'Gone', 'Limbo'],
    profiles: { steady: { lapse: 0.1, back: 0.5, leave: 0.02, unused: 1 } },
  });
  const answer = await call(app, 'POST', '/v1/models/validate', me.key, { body });
  t.is(answer.body.valid, true, answer.text);
  const warnings = JSON.stringify(answer.body.warnings);
  t.regex(warnings, /Limbo/);
  t.regex(warnings, /unused/);
});

test('validate counts in the rate window like a simulation and takes no quota', async (t) => {
  const me = await buildCaller(app.services.pool, { requests_per_minute: 2, monthly_requests: 1 });
  t.is((await call(app, 'POST', '/v1/models/validate', me.key, { body: tinyModel() })).status, 200);
  const second = await call(app, 'POST', '/v1/models/validate', me.key, { body: tinyModel() });
  t.is(second.status, 200);
  t.regex(second.headers.get('ratelimit') ?? '', /r=0/);
  const third = await call(app, 'POST', '/v1/models/validate', me.key, { body: tinyModel() });
  t.is(third.status, 429);
  t.is(third.body.error.details.code, 'rate_limit_exceeded');
  const usage = await call(app, 'GET', '/v1/usage', me.key);
  t.is(usage.body.usage.requests, 0);
});

test('every model endpoint needs a credential', async (t) => {
  for (const [method, path] of [
    ['GET', '/v1/models'],
    ['GET', '/v1/models/x'],
    ['GET', '/v1/models/x/versions/1'],
    ['PUT', '/v1/models/x'],
    ['DELETE', '/v1/models/x'],
    ['POST', '/v1/models/validate'],
  ] as const) {
    const answer = await call(app, method, path, undefined, method === 'PUT' || method === 'POST' ? { body: tinyModel() } : {});
    t.is(answer.status, 401, `${method} ${path}`);
  }
});
