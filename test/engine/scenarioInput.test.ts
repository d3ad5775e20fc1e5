import test from 'ava';
import { generateRecords, PRESETS, writeRecordsJson } from '../../shared/engine/index.ts';
import type { SimulationInput } from '../../shared/engine/index.ts';
import { SCENARIO_LIMITS, type ScenarioEvent } from '../../shared/engine/scenario.ts';

// The engine's own guard on a scenario (callers validate requests first): a RangeError for a scenario on
// an engine before 3 or any bad event, so a bad job never produces silently wrong data.
const base: SimulationInput = { preset: 'finance', profile: 'balanced_investor', seed: 7, numInteractions: 50 };
const crash: ScenarioEvent = { type: 'market_crash', sequence: 1, at_step: 5, duration: 10, intensity: 1 };

test('a scenario needs engine 3: engines 1 and 2 reject it', (t) => {
  for (const serviceVersion of ['1.0.0', '2.0.0']) {
    t.throws(() => generateRecords({ ...base, serviceVersion, scenario: { events: [crash] } }), { instanceOf: RangeError }, serviceVersion);
  }
  t.notThrows(() => generateRecords({ ...base, serviceVersion: '3.0.0', scenario: { events: [crash] } }));
});

test('bad events are rejected with a RangeError naming the field', (t) => {
  const bad: [string, unknown][] = [
    ['type', { ...crash, type: 'fatigue' }],
    ['sequence', { ...crash, sequence: 0 }],
    ['sequence', { ...crash, sequence: 1.5 }],
    ['sequence', { ...crash, sequence: 'some' }],
    ['at_step', { ...crash, at_step: 0 }],
    ['duration', { ...crash, duration: 0 }],
    ['duration', { ...crash, duration: SCENARIO_LIMITS.maxDuration + 1 }],
    ['intensity', { ...crash, intensity: 0 }],
    ['intensity', { ...crash, intensity: SCENARIO_LIMITS.maxIntensity + 0.0001 }],
    ['intensity', { ...crash, intensity: Number.NaN }],
    ['unknown field colour', { ...crash, colour: 'red' }],
  ];
  for (const [field, event] of bad) {
    const error = t.throws(() => writeRecordsJson({ ...base, scenario: { events: [event as ScenarioEvent] } }), { instanceOf: RangeError });
    t.true(error.message.includes(field), `${field}: ${error.message}`);
  }
  t.throws(() => generateRecords({ ...base, scenario: { events: [] } }), { instanceOf: RangeError });
  t.throws(() => generateRecords({ ...base, scenario: { events: Array.from({ length: SCENARIO_LIMITS.maxEvents + 1 }, () => crash) } }), { instanceOf: RangeError });
});

test('the bounds themselves are accepted, for every preset\'s every event type', (t) => {
  for (const preset of PRESETS) {
    for (const { type } of preset.scenario_events) {
      const events: ScenarioEvent[] = [
        { type, sequence: 'all', at_step: 1, duration: SCENARIO_LIMITS.minDuration, intensity: SCENARIO_LIMITS.maxIntensity },
        { type, sequence: 1, at_step: 1, duration: SCENARIO_LIMITS.maxDuration, intensity: Number.MIN_VALUE },
      ];
      const records = generateRecords({ preset: preset.name, profile: preset.default_profile, seed: 1, numInteractions: 200, scenario: { events } });
      t.is(records[0]!.scenario_event, type, `${preset.name}.${type}`);
    }
  }
  t.notThrows(() => generateRecords({ ...base, scenario: { events: Array.from({ length: SCENARIO_LIMITS.maxEvents }, () => crash) } }));
});

test('without a scenario, engine 3 prints scenario_event null on every record; engines 1 and 2 have no such field', (t) => {
  for (const preset of PRESETS) {
    const input = { preset: preset.name, profile: preset.default_profile, seed: 3, numInteractions: 500 };
    t.true(generateRecords(input).every((r) => r.scenario_event === null), preset.name);
    t.true(writeRecordsJson(input).toString('utf8').includes('"scenario_event":null}'), preset.name);
    for (const serviceVersion of ['1.0.0', '2.0.0']) {
      t.true(generateRecords({ ...input, serviceVersion }).every((r) => !('scenario_event' in r)), `${preset.name} ${serviceVersion}`);
    }
  }
});
