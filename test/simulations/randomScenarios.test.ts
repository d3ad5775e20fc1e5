import test from 'ava';
import { buildCaller } from '../helpers/limitFixtures.ts';
import type { TestApp } from '../helpers/startTestApp.ts';
import { useFileStack } from '../helpers/useFileStack.ts';
import { getWithKey } from '../history/historyFixtures.ts';
import { postSimulation } from './postSimulation.ts';

// Random scenario events and `unplaced` through the HTTP API (docs/scenarios.md#random-events-at-a-chosen-rate):
// what the engine placed is echoed after the records, every label is one of its events, the run is
// reproducible and its counterfactual is the run without `scenario`; bad members are 422 with their paths.
let app: TestApp;
let key: string;

useFileStack(
  test,
  async (started) => {
    app = started;
    ({ key } = await buildCaller(app.services.pool, { max_concurrent_simulations: 32 }));
  },
  { threads: 2 },
);

type Row = Record<string, string | number | null>;
type Placed = { type: string; sequence: number; at_step: number; duration: number; intensity: number };

const RANDOM = { types: ['sepsis_onset', 'hypoxia'], per_sequence: 1.5, duration: [3, 12], intensity: [0.5, 2] };
const request = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  preset: 'healthcare',
  profile: 'critical_care',
  num_interactions: 3000,
  seed: 41,
  scenario: { random: RANDOM },
  ...extra,
});

const stepsOf = (data: readonly Row[]): number[] => {
  const steps: number[] = [];
  data.forEach((record, i) => steps.push(i > 0 && data[i - 1]!.sequence_id === record.sequence_id ? steps[i - 1]! + 1 : 1));
  return steps;
};

test('a random scenario is echoed with min_gap filled in and placed events that are exactly the labelled windows', async (t) => {
  const response = await postSimulation(app, request(), { key });
  t.is(response.status, 200, response.text);
  const { scenario, data } = response.body as { scenario: { random: unknown; placed: Placed[]; unplaced: unknown[] }; data: Row[] };
  t.deepEqual(scenario.random, { ...RANDOM, min_gap: 10 });
  t.deepEqual(scenario.unplaced, []);
  t.true(scenario.placed.length > 10, String(scenario.placed.length));
  const steps = stepsOf(data);
  let mislabelled = 0;
  data.forEach((record, i) => {
    const step = steps[i]!;
    const event = scenario.placed.find((each) => each.sequence === record.sequence_id && step >= each.at_step && step < each.at_step + each.duration);
    if (record.scenario_event !== (event?.type ?? null)) mislabelled++;
  });
  t.is(mislabelled, 0);
  for (const event of scenario.placed) {
    t.true(RANDOM.types.includes(event.type) && event.at_step > 10 && event.duration >= 3 && event.duration <= 12);
    t.true(event.intensity >= 0.5 && event.intensity <= 2);
  }
  // The same request makes the same body; the history Run keeps the scenario as asked, for a replay.
  const again = await postSimulation(app, request(), { key });
  t.deepEqual(again.body.data, data);
  t.deepEqual(again.body.scenario, scenario);
  const run = await getWithKey(app, `/v1/simulations/${response.body.simulation_id}`, key);
  t.deepEqual(run.body.scenario, { random: { ...RANDOM, min_gap: 10 } });
});

test('the run without the scenario is the counterfactual: every sequence equal before its first placed event', async (t) => {
  const treated = await postSimulation(app, request(), { key });
  const control = await postSimulation(app, request({ scenario: undefined }), { key });
  const placed = treated.body.scenario.placed as Placed[];
  const bySequence = (data: Row[]): Map<number, Row[]> => {
    const map = new Map<number, Row[]>();
    for (const { interaction_id: _, ...rest } of data) map.set(rest.sequence_id as number, [...(map.get(rest.sequence_id as number) ?? []), rest]);
    return map;
  };
  const a = bySequence(treated.body.data);
  const b = bySequence(control.body.data);
  let compared = 0;
  for (const [id, records] of a) {
    const other = b.get(id);
    if (other === undefined) continue;
    const first = placed.find((event) => event.sequence === id);
    const n = Math.min(records.length, other.length, first === undefined ? Infinity : first.at_step - 1);
    t.deepEqual(records.slice(0, n), other.slice(0, n), `sequence ${id}`);
    compared++;
  }
  t.true(compared > 5);
});

test('a listed event that labels nothing is reported in unplaced, one that labels records in placed', async (t) => {
  const events = [
    { type: 'hypoxia', sequence: 1, at_step: 3, duration: 2, intensity: 1 },
    { type: 'hypoxia', sequence: 1, at_step: 900, duration: 2, intensity: 1 },
    { type: 'sepsis_onset', sequence: 9999, at_step: 3, duration: 2, intensity: 1 },
  ];
  const response = await postSimulation(app, request({ num_interactions: 200, scenario: { events } }), { key });
  t.is(response.status, 200, response.text);
  t.deepEqual(response.body.scenario.placed, [{ ...events[0], sequence: 1 }]);
  t.deepEqual(response.body.scenario.unplaced, [events[1], events[2]]);
});

type Issue = { path: string; message: string };
const INVALID: ReadonlyArray<readonly [string, Record<string, unknown>, readonly string[]]> = [
  ['unknown types, each by its index', { ...RANDOM, types: ['hypoxia', 'market_crash', 'meteor'] }, ['scenario.random.types.1', 'scenario.random.types.2']],
  ['no types', { ...RANDOM, types: [] }, ['scenario.random.types']],
  ['per_sequence above 8 and a duration range upside down', { ...RANDOM, per_sequence: 9, duration: [5, 2] }, ['scenario.random.per_sequence', 'scenario.random.duration']],
  ['an intensity of 0 and a min_gap of 0', { ...RANDOM, intensity: [0, 1], min_gap: 0 }, ['scenario.random.intensity.0', 'scenario.random.min_gap']],
  ['a fractional duration and an unknown member', { ...RANDOM, duration: [1.5, 3], rate: 2 }, ['scenario.random.duration.0', 'scenario.random.rate']],
  ['more than an episode can hold', { ...RANDOM, per_sequence: 8, duration: [10, 20] }, ['scenario.random']],
];

for (const [what, random, paths] of INVALID) {
  test(`422 validation_failed naming every problem for ${what}`, async (t) => {
    const response = await postSimulation(app, request({ scenario: { random } }), { key });
    t.is(response.status, 422, response.text);
    t.is(response.body.error.details.code, 'validation_failed');
    const issues = response.body.error.details.issues as Issue[];
    for (const path of paths) t.true(issues.some((issue) => issue.path === path && issue.message !== ''), `${path} in ${JSON.stringify(issues)}`);
  });
}

test('random needs engine 3 like any scenario', async (t) => {
  const response = await postSimulation(app, request({ engine_version: '2' }), { key });
  t.is(response.status, 422);
  t.true((response.body.error.details.issues as Issue[]).some((issue) => issue.path === 'scenario'));
});
