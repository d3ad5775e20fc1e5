import test from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { buildCaller } from '../helpers/limitFixtures.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { postSimulation } from './postSimulation.ts';
import { CRASH, financeWithCrash as finance } from './scenarioFixtures.ts';

// The request's `scenario` (docs/api.md#scenarios) refused with 422 validation_failed and an issue naming
// each bad field. No worker in this file: every request here is refused before anything is enqueued.
let app: TestApp;
let key: string;

test.before(async () => {
  app = await startTestApp();
  ({ key } = await buildCaller(app.services.pool, {}));
});

test.after.always(async () => {
  await app?.close();
});

type Issue = { path: string; message: string };

const issuesOf = async (body: unknown): Promise<{ status: number; code: unknown; issues: Issue[] }> => {
  const response = await postSimulation(app, body, { key });
  return { status: response.status, code: response.body?.error?.details?.code, issues: response.body?.error?.details?.issues ?? [] };
};

const withEvent = (change: Record<string, unknown>, drop: readonly string[] = []): Record<string, unknown> => {
  const event: Record<string, unknown> = { ...CRASH, ...change };
  for (const name of drop) delete event[name];
  return finance({ scenario: { events: [event] } });
};

const INVALID: ReadonlyArray<readonly [string, Record<string, unknown>, string]> = [
  ['an unknown field in an event', withEvent({ strength: 2 }), 'scenario.events.0.strength'],
  ['an unknown field in the scenario', finance({ scenario: { events: [CRASH], name: 'crash' } }), 'scenario.name'],
  ["another preset's event type", withEvent({ type: 'fatigue' }), 'scenario.events.0.type'],
  ['an event type no preset has', withEvent({ type: 'meteor_strike' }), 'scenario.events.0.type'],
  ["finance's event type on the alias mobile", finance({ preset: 'mobile', scenario: { events: [CRASH] } }), 'scenario.events.0.type'],
  ['a type that is not a string', withEvent({ type: 3 }), 'scenario.events.0.type'],
  ['no type', withEvent({}, ['type']), 'scenario.events.0.type'],
  ['sequence 0', withEvent({ sequence: 0 }), 'scenario.events.0.sequence'],
  ['a negative sequence', withEvent({ sequence: -2 }), 'scenario.events.0.sequence'],
  ['a fractional sequence', withEvent({ sequence: 1.5 }), 'scenario.events.0.sequence'],
  ['a sequence given as a string number', withEvent({ sequence: '1' }), 'scenario.events.0.sequence'],
  ['a sequence of "ALL"', withEvent({ sequence: 'ALL' }), 'scenario.events.0.sequence'],
  ['a null sequence', withEvent({ sequence: null }), 'scenario.events.0.sequence'],
  ['no sequence', withEvent({}, ['sequence']), 'scenario.events.0.sequence'],
  ['at_step 0', withEvent({ at_step: 0 }), 'scenario.events.0.at_step'],
  ['a fractional at_step', withEvent({ at_step: 2.5 }), 'scenario.events.0.at_step'],
  ['no at_step', withEvent({}, ['at_step']), 'scenario.events.0.at_step'],
  ['duration 0', withEvent({ duration: 0 }), 'scenario.events.0.duration'],
  ['duration 1001', withEvent({ duration: 1001 }), 'scenario.events.0.duration'],
  ['a fractional duration', withEvent({ duration: 1.5 }), 'scenario.events.0.duration'],
  ['no duration', withEvent({}, ['duration']), 'scenario.events.0.duration'],
  ['intensity 0', withEvent({ intensity: 0 }), 'scenario.events.0.intensity'],
  ['a negative intensity', withEvent({ intensity: -1 }), 'scenario.events.0.intensity'],
  ['intensity above 3', withEvent({ intensity: 3.0001 }), 'scenario.events.0.intensity'],
  ['intensity given as a string', withEvent({ intensity: '1' }), 'scenario.events.0.intensity'],
  ['no events', finance({ scenario: { events: [] } }), 'scenario.events'],
  ['17 events', finance({ scenario: { events: Array.from({ length: 17 }, () => CRASH) } }), 'scenario.events'],
  ['events that are not an array', finance({ scenario: { events: CRASH } }), 'scenario.events'],
  ['a scenario without events', finance({ scenario: {} }), 'scenario.events'],
  ['a scenario that is an array', finance({ scenario: [CRASH] }), 'scenario'],
  ['a null scenario', finance({ scenario: null }), 'scenario'],
  ['a bad field in the second event', finance({ scenario: { events: [CRASH, { ...CRASH, duration: 0 }] } }), 'scenario.events.1.duration'],
];

for (const [what, body, expected] of INVALID) {
  test(`422 validation_failed with an issue at "${expected}" for ${what}`, async (t) => {
    const { status, code, issues } = await issuesOf(body);
    t.is(status, 422, JSON.stringify(issues));
    t.is(code, 'validation_failed');
    t.true(issues.some((issue) => issue.path === expected && issue.message !== ''), JSON.stringify(issues));
  });
}

test('every bad field of an event is named at once', async (t) => {
  const { status, issues } = await issuesOf(withEvent({ at_step: 0, duration: 5000, intensity: 9, extra: true }));
  t.is(status, 422);
  t.deepEqual(
    issues.map((issue) => issue.path).sort(),
    ['scenario.events.0.at_step', 'scenario.events.0.duration', 'scenario.events.0.extra', 'scenario.events.0.intensity'],
  );
});

for (const engine of ['1', '2', '1.0.0', '2.0.0']) {
  test(`a scenario with engine_version "${engine}" is 422 validation_failed at "scenario": engines before 3 have none`, async (t) => {
    const { status, code, issues } = await issuesOf(finance({ engine_version: engine }));
    t.is(status, 422);
    t.is(code, 'validation_failed');
    t.deepEqual(issues.map((issue) => issue.path), ['scenario'], JSON.stringify(issues));
  });
}

test('refused scenarios leave no ledger row: nothing was admitted', async (t) => {
  for (const [, body] of INVALID) {
    t.is((await issuesOf(body)).status, 422);
  }
  // Every test of this file is a refusal, so at no moment may the ledger hold a row.
  t.is(await app.services.pool.oneFirst(sql.type(z.object({ count: z.number() }))`SELECT count(*)::int AS count FROM simulations`), 0);
});
