import test from 'ava';
import { generateRecords, writeRecordsJson } from '../../shared/engine/index.ts';
import type { SimulationInput, SimulationRecord } from '../../shared/engine/index.ts';
import type { PlacedEvent, RandomEvents, Scenario } from '../../shared/engine/scenario.ts';
import { scenarioOutcomeOf } from '../../shared/engine/scenarioOutcomeOf.ts';
import { sequencesOf } from './helpers/sampleRecords.ts';

// Random scenario events (docs/scenarios.md#random-events-at-a-chosen-rate): placed from the seed at the rate
// asked, within their ranges, never overlapping nor closer than min_gap to another or to a sequence's
// start; `placed` reports exactly what labelled records; reproducible, prefix-stable, and the run without
// the scenario is the counterfactual.

const finance: SimulationInput = { preset: 'finance', profile: 'balanced_investor', seed: 11, numInteractions: 6000 };
const random: RandomEvents = { types: ['market_crash', 'volatility_regime'], per_sequence: 3, duration: [5, 30], intensity: [0.5, 1.5], min_gap: 12 };

const bySequence = (records: readonly SimulationRecord[]): Map<number, SimulationRecord[]> =>
  new Map(sequencesOf(records).map((sequence) => [sequence[0]!.sequence_id as number, sequence]));

test('random events stay within their ranges, apart by min_gap, clear of the first step, and label exactly their windows', (t) => {
  const input = { ...finance, scenario: { random } };
  const { placed, unplaced } = scenarioOutcomeOf(input);
  t.deepEqual(unplaced, []);
  t.true(placed.length > 15, `${placed.length} placed`);
  const sequences = bySequence(generateRecords(input));
  const perSequence = new Map<number, PlacedEvent[]>();
  for (const event of placed) perSequence.set(event.sequence, [...(perSequence.get(event.sequence) ?? []), event]);
  for (const [id, events] of perSequence) {
    let previousEnd = 1;
    for (const event of events) {
      t.true(random.types.includes(event.type));
      t.true(event.duration >= 5 && event.duration <= 30 && Number.isInteger(event.duration));
      t.true(event.intensity >= 0.5 && event.intensity <= 1.5);
      // At least min_gap clean steps before it: after the sequence's first step or the previous event.
      t.true(event.at_step - previousEnd >= random.min_gap, `sequence ${id} ${JSON.stringify(events)}`);
      previousEnd = event.at_step + event.duration;
    }
  }
  let mislabelled = 0;
  for (const [id, records] of sequences) {
    const events = perSequence.get(id) ?? [];
    records.forEach((record, i) => {
      const step = i + 1;
      const active = events.find((event) => step >= event.at_step && step < event.at_step + event.duration);
      if (record.scenario_event !== (active?.type ?? null)) mislabelled++;
    });
    // Every placed event labelled at least its first record.
    for (const event of events) t.true(records.length >= event.at_step);
  }
  t.is(mislabelled, 0);
});

test('a sequence that runs its whole episode gets per_sequence events on average, and the first step never carries one', (t) => {
  // Education's sequences all last their episode (40 items): the count is exact in expectation.
  const input: SimulationInput = {
    preset: 'education',
    profile: 'average',
    seed: 3,
    numInteractions: 40 * 1000,
    scenario: { random: { types: ['fatigue', 'difficulty_spike', 'mastery_jump'], per_sequence: 1.5, duration: [3, 6], intensity: [1, 1], min_gap: 5 } },
  };
  const { placed } = scenarioOutcomeOf(input);
  const mean = placed.length / 1000;
  t.true(mean > 1.4 && mean < 1.6, `mean ${mean}`);
  t.true(placed.every((event) => event.at_step >= 6));
  t.deepEqual(new Set(placed.map((event) => event.type)).size, 3);
});

test('placement is reproducible and prefix-stable, and the run without the scenario is its counterfactual', (t) => {
  const input = { ...finance, scenario: { random } };
  t.deepEqual(writeRecordsJson(input), writeRecordsJson(input));
  const whole = scenarioOutcomeOf(input);
  const prefix = scenarioOutcomeOf({ ...input, numInteractions: 2500 });
  const lastOfPrefix = prefix.placed.at(-1)!;
  t.deepEqual(prefix.placed.slice(0, -1), whole.placed.slice(0, prefix.placed.length - 1));
  t.like(whole.placed[prefix.placed.length - 1], { sequence: lastOfPrefix.sequence, at_step: lastOfPrefix.at_step, type: lastOfPrefix.type });
  t.deepEqual(generateRecords({ ...input, numInteractions: 2500 }), generateRecords(input).slice(0, 2500));

  const treated = bySequence(generateRecords(input));
  const control = bySequence(generateRecords(finance));
  const last = Math.min(Math.max(...treated.keys()), Math.max(...control.keys()));
  const without = ({ interaction_id: _, ...rest }: SimulationRecord): SimulationRecord => rest;
  for (const [id, records] of treated) {
    if (id >= last) continue;
    const first = whole.placed.find((event) => event.sequence === id);
    const other = control.get(id)!;
    const n = first === undefined ? Math.max(records.length, other.length) : first.at_step - 1;
    t.deepEqual(records.slice(0, n).map(without), other.slice(0, n).map(without), `sequence ${id}`);
  }
});

test('listed events rank first, random ones keep clear of them, and a listed event that labels nothing is unplaced', (t) => {
  const scenario: Scenario = {
    events: [
      { type: 'rally', sequence: 'all', at_step: 40, duration: 20, intensity: 1 },
      { type: 'market_crash', sequence: 100_000, at_step: 5, duration: 5, intensity: 1 },
      { type: 'market_crash', sequence: 1, at_step: 5000, duration: 5, intensity: 1 },
    ],
    random,
  };
  const input = { ...finance, scenario };
  const { placed, unplaced } = scenarioOutcomeOf(input);
  t.deepEqual(unplaced, [scenario.events![1], scenario.events![2]]);
  const rallies = placed.filter((event) => event.type === 'rally');
  t.true(rallies.length > 5);
  for (const event of placed.filter((e) => e.type !== 'rally')) {
    t.true(event.at_step + event.duration + random.min_gap <= 40 || 60 + random.min_gap <= event.at_step, JSON.stringify(event));
  }
  // The records alone say the same: each run of records with one label is one placed event's window
  // (cut where its sequence ends), in record order, and every placed event has one.
  const records = bySequence(generateRecords(input));
  const windows: [string, number, number, number][] = [];
  for (const [id, own] of records) {
    own.forEach((record, i) => {
      const label = record.scenario_event ?? null;
      if (label === null) return;
      const last = windows.at(-1);
      if (last !== undefined && last[0] === label && last[1] === id && last[3] === i) last[3] = i + 1;
      else windows.push([String(label), id, i + 1, i + 1]);
    });
  }
  t.deepEqual(
    windows,
    placed.map((event) => [event.type, event.sequence, event.at_step, Math.min(event.at_step + event.duration - 1, records.get(event.sequence)!.length)]),
  );
});

test('the engine refuses random events that cannot fit an episode', (t) => {
  t.throws(() => generateRecords({ ...finance, scenario: { random: { ...random, per_sequence: 8, duration: [90, 100] } } }), { instanceOf: RangeError, message: /need 896 steps/ });
  t.throws(() => generateRecords({ ...finance, scenario: { random: { ...random, types: ['fatigue'] } } }), { instanceOf: RangeError });
});
