import test from 'ava';
import { buildCaller } from '../helpers/limitFixtures.ts';
import type { TestApp } from '../helpers/startTestApp.ts';
import { useFileStack } from '../helpers/useFileStack.ts';
import type { HttpAnswer } from '../bulk/httpRequest.ts';
import { postAs } from './scenarioFixtures.ts';

// Matched counterfactuals over HTTP (docs/scenarios.md#the-counterfactual-guarantee): two engine-3 runs with
// the same inputs, one with an event and one without, differ only where the event reaches.
let app: TestApp;
let key: string;

useFileStack(
  test,
  async (started) => {
    app = started;
    ({ key } = await buildCaller(app.services.pool, { max_concurrent_simulations: 8 }));
  },
  { threads: 2 },
);

const post = (body: unknown, format: 'ndjson') => postAs(app, key, body, format);

type Row = Record<string, unknown> & { sequence_id: number; interaction_id: number; scenario_event: string | null };

/** The sequences of a run that appear whole in it (a later sequence follows them), by sequence_id. */
const wholeSequences = (records: readonly Row[]): Map<number, Row[]> => {
  const sequences = new Map<number, Row[]>();
  for (const record of records) {
    const rows = sequences.get(record.sequence_id) ?? [];
    rows.push(record);
    sequences.set(record.sequence_id, rows);
  }
  const last = records.at(-1)?.sequence_id;
  sequences.delete(last ?? 0);
  return sequences;
};

const withoutInteractionId = ({ interaction_id: _id, ...rest }: Row): Record<string, unknown> => rest;

const parseNdjson = (answer: HttpAnswer): Row[] => answer.bytes.toString().split('\n').slice(0, -1).map((line) => JSON.parse(line) as Row);

for (const [preset, type, n] of [
  ['finance', 'market_crash', 3000],
  ['healthcare', 'sepsis_onset', 2000],
  ['education', 'fatigue', 2000],
  ['mobile_app', 'outage', 5000],
] as const) {
  test(`${preset}: a matched pair over HTTP differs only where ${type} reaches: untargeted sequences identical but interaction_id, the targeted one before at_step`, async (t) => {
    const plain = { preset, num_interactions: n, seed: 2026, engine_version: '3' };
    const without = await post(plain, 'ndjson');
    t.is(without.status, 200);
    const a = parseNdjson(without);
    t.true(a.every((record) => record.scenario_event === null), 'no event in the run without a scenario');
    const wholeA = wholeSequences(a);
    // The target: a later sequence (so one precedes it) whose episode outlasts the event.
    const at_step = 5;
    const duration = 8;
    const target = [...wholeA].find(([sequence, rows]) => sequence >= 2 && rows.length >= at_step + duration)?.[0];
    if (target === undefined) {
      t.fail('no sequence of the run is long enough for the event');
      return;
    }
    const event = { type, sequence: target, at_step, duration };
    const withEvent = await post({ ...plain, scenario: { events: [event] } }, 'ndjson');
    t.is(withEvent.status, 200, withEvent.bytes.toString());
    const b = parseNdjson(withEvent);
    const wholeB = wholeSequences(b);

    let compared = 0;
    for (const [sequence, rows] of wholeA) {
      const other = wholeB.get(sequence);
      if (other === undefined || sequence === target) continue;
      // Untargeted: identical in every field but interaction_id (the targeted one may change length).
      t.deepEqual(other.map(withoutInteractionId), rows.map(withoutInteractionId), `sequence ${sequence}`);
      compared += 1;
    }
    t.true(compared >= 2, `untargeted whole sequences compared: ${compared}`);

    const targetA = a.filter((record) => record.sequence_id === target);
    const targetB = b.filter((record) => record.sequence_id === target);
    // Identical before at_step, interaction_id included (everything before it is the same).
    t.deepEqual(targetB.slice(0, at_step - 1), targetA.slice(0, at_step - 1));
    // The window: its records carry the type from at_step on (fewer than duration only if the episode
    // ends inside it); no record outside it does.
    const window = b.filter((record) => record.scenario_event !== null);
    t.true(window.length >= 1 && window.length <= duration, `window of ${window.length}`);
    t.true(window.every((record) => record.scenario_event === type && record.sequence_id === target));
    t.deepEqual(
      window.map((record) => targetB.indexOf(record) + 1),
      Array.from({ length: window.length }, (_, index) => at_step + index),
    );
    if (targetB.length >= at_step + duration) {
      t.is(window.length, duration);
    }
  });
}
