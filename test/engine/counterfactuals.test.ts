import test from 'ava';
import { generateRecords, PRESETS, writeRecordsJson } from '../../shared/engine/index.ts';
import type { PresetDefinition, SimulationInput, SimulationRecord } from '../../shared/engine/index.ts';
import type { Scenario, ScenarioEvent } from '../../shared/engine/scenario.ts';
import { sequencesOf } from './helpers/sampleRecords.ts';

// docs/scenarios.md#the-counterfactual-guarantee, as properties over many random cases: presets, profiles,
// seeds, sizes and scenarios drawn from a fixed-seed generator (so a failure names a case that replays).

/** mulberry32: the cases' own generator, fixed seed, so every run checks the same cases. */
function cases(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const CASES = 60;

interface Case {
  readonly preset: PresetDefinition;
  readonly input: SimulationInput;
  readonly scenario: Scenario & { readonly events: readonly ScenarioEvent[] };
}

function randomEvent(random: () => number, preset: PresetDefinition): ScenarioEvent {
  const types = preset.scenario_events.map((e) => e.type);
  return {
    type: types[Math.floor(random() * types.length)]!,
    sequence: random() < 0.2 ? 'all' : 1 + Math.floor(random() * 6),
    at_step: 1 + Math.floor(random() * 80),
    duration: 1 + Math.floor(random() * 120),
    // (0, 3]: 1 - random() is in (0, 1].
    intensity: 3 * (1 - random()),
  };
}

function randomCase(random: () => number): Case {
  const preset = PRESETS[Math.floor(random() * PRESETS.length)]!;
  const profile = preset.supported_profiles[Math.floor(random() * preset.supported_profiles.length)]!;
  const seed = Math.floor(random() * 4294967296);
  const numInteractions = 1 + Math.floor(random() * 2500);
  const events = Array.from({ length: 1 + Math.floor(random() * 4) }, () => randomEvent(random, preset));
  return { preset, input: { preset: preset.name, profile, seed, numInteractions }, scenario: { events } };
}

const targets = (event: ScenarioEvent, sequence: number): boolean => event.sequence === 'all' || event.sequence === sequence;
const withoutInteractionId = ({ interaction_id: _, ...rest }: SimulationRecord): SimulationRecord => rest;
/** Sequences by sequence_id, and the id of the last one (which num_interactions may cut). */
function bySequence(records: readonly SimulationRecord[]): { sequences: Map<number, SimulationRecord[]>; last: number } {
  const sequences = new Map(sequencesOf(records).map((s) => [s[0]!.sequence_id as number, s]));
  return { sequences, last: Math.max(0, ...sequences.keys()) };
}
const describe = (c: Case): string => JSON.stringify({ ...c.input, scenario: c.scenario });

test('untargeted sequences are identical but interaction_id; targeted ones are identical before their first at_step', (t) => {
  const random = cases(1);
  for (let k = 0; k < CASES; k++) {
    const c = randomCase(random);
    const control = bySequence(generateRecords(c.input));
    const treated = bySequence(generateRecords({ ...c.input, scenario: c.scenario }));
    for (const [id, records] of treated.sequences) {
      const other = control.sequences.get(id);
      if (other === undefined) continue;
      const events = c.scenario.events.filter((e) => targets(e, id));
      if (events.length === 0) {
        // Whole in both runs: the last sequence of either may be cut at a different place.
        if (id >= control.last || id >= treated.last) continue;
        t.deepEqual(records.map(withoutInteractionId), other.map(withoutInteractionId), `${describe(c)} sequence ${id}`);
      } else {
        const before = Math.min(...events.map((e) => e.at_step!)) - 1;
        const n = Math.min(before, records.length, other.length);
        t.deepEqual(records.slice(0, n).map(withoutInteractionId), other.slice(0, n).map(withoutInteractionId), `${describe(c)} sequence ${id}`);
      }
    }
  }
});

test('every record in an event window carries the first-listed active event type, and no record outside one does', (t) => {
  const random = cases(2);
  for (let k = 0; k < CASES; k++) {
    const c = randomCase(random);
    let bad = 0;
    for (const sequence of sequencesOf(generateRecords({ ...c.input, scenario: c.scenario }))) {
      const id = sequence[0]!.sequence_id as number;
      sequence.forEach((record, i) => {
        const step = i + 1;
        const active = c.scenario.events.find((e) => targets(e, id) && step >= e.at_step! && step < e.at_step! + e.duration);
        if (record.scenario_event !== (active?.type ?? null)) bad++;
      });
    }
    t.is(bad, 0, describe(c));
  }
});

test('two scenarios that differ in one event differ only in the sequences it targets, from its at_step on', (t) => {
  const random = cases(3);
  for (let k = 0; k < CASES; k++) {
    const c = randomCase(random);
    const extra = randomEvent(random, c.preset);
    // The extra event anywhere in the list: first-listed wins, so its place matters to the labels.
    const events = [...c.scenario.events];
    events.splice(Math.floor(random() * (events.length + 1)), 0, extra);
    const a = bySequence(generateRecords({ ...c.input, scenario: c.scenario }));
    const b = bySequence(generateRecords({ ...c.input, scenario: { events } }));
    for (const [id, records] of b.sequences) {
      const other = a.sequences.get(id);
      if (other === undefined) continue;
      if (!targets(extra, id)) {
        if (id >= a.last || id >= b.last) continue;
        t.deepEqual(records.map(withoutInteractionId), other.map(withoutInteractionId), `${describe(c)} + ${JSON.stringify(extra)} sequence ${id}`);
      } else {
        const n = Math.min(extra.at_step! - 1, records.length, other.length);
        t.deepEqual(records.slice(0, n).map(withoutInteractionId), other.slice(0, n).map(withoutInteractionId), `${describe(c)} + ${JSON.stringify(extra)} sequence ${id}`);
      }
    }
  }
});

test('scenario runs are byte-identical when repeated and prefix-stable', (t) => {
  const random = cases(4);
  for (let k = 0; k < CASES; k++) {
    const c = randomCase(random);
    const input = { ...c.input, scenario: c.scenario };
    const bytes = writeRecordsJson(input);
    t.true(bytes.equals(writeRecordsJson(input)), describe(c));
    const shorter = 1 + Math.floor(random() * c.input.numInteractions);
    t.deepEqual(generateRecords({ ...input, numInteractions: shorter }), generateRecords(input).slice(0, shorter), `${describe(c)} n=${shorter}`);
  }
});

test('scenario runs keep the published transitions and start states', (t) => {
  const random = cases(5);
  const startStates = new Map<string, Record<string, string>>();
  for (const preset of PRESETS) {
    // The first record of every sequence of a run without events is in its profile's start state.
    startStates.set(
      preset.name,
      Object.fromEntries(preset.supported_profiles.map((profile) => [profile, generateRecords({ preset: preset.name, profile, seed: 1, numInteractions: 1 })[0]!.state as string])),
    );
  }
  for (let k = 0; k < CASES; k++) {
    const c = randomCase(random);
    let bad = 0;
    for (const sequence of sequencesOf(generateRecords({ ...c.input, scenario: c.scenario }))) {
      if (sequence[0]!.state !== startStates.get(c.preset.name)![c.input.profile]) bad++;
      for (let i = 1; i < sequence.length; i++) {
        if (!c.preset.state_transitions[sequence[i - 1]!.state as string]!.includes(sequence[i]!.state as string)) bad++;
      }
    }
    t.is(bad, 0, describe(c));
  }
});

// Each event's effect on matched pairs, and that intensity scales it: the event on every sequence of a
// fixed sample at intensity 0.5, 1 and 2, against the same run without it.
const EFFECTS: readonly { preset: SimulationInput['preset']; profile: string; type: string; at_step: number; duration: number; measure: (treated: SimulationRecord[], control: SimulationRecord[]) => number }[] = [
  { preset: 'finance', profile: 'balanced_investor', type: 'market_crash', at_step: 30, duration: 20, measure: (a, b) => -(sumOf(a, 'daily_return') - sumOf(b, 'daily_return')) },
  { preset: 'finance', profile: 'growth_investor', type: 'rally', at_step: 30, duration: 20, measure: (a, b) => sumOf(a, 'daily_return') - sumOf(b, 'daily_return') },
  { preset: 'finance', profile: 'active_trader', type: 'volatility_regime', at_step: 30, duration: 20, measure: (a, b) => sdOf(a, 'daily_return') / sdOf(b, 'daily_return') },
  { preset: 'education', profile: 'average', type: 'fatigue', at_step: 10, duration: 20, measure: (a, b) => meanOf(a, 'response_time_ms') / meanOf(b, 'response_time_ms') },
  { preset: 'education', profile: 'slow_accurate', type: 'difficulty_spike', at_step: 10, duration: 20, measure: (a, b) => meanOf(a, 'difficulty') - meanOf(b, 'difficulty') },
  { preset: 'education', profile: 'fast_inaccurate', type: 'mastery_jump', at_step: 10, duration: 20, measure: (a, b) => meanOf(a, 'correct') - meanOf(b, 'correct') },
  { preset: 'healthcare', profile: 'chronic_condition', type: 'sepsis_onset', at_step: 3, duration: 10, measure: (a, b) => meanOf(a, 'heart_rate') - meanOf(b, 'heart_rate') },
  { preset: 'healthcare', profile: 'stable_outpatient', type: 'missed_medication', at_step: 3, duration: 10, measure: (a, b) => meanOf(a, 'systolic_bp') - meanOf(b, 'systolic_bp') },
  { preset: 'healthcare', profile: 'post_operative', type: 'hypoxia', at_step: 3, duration: 10, measure: (a, b) => meanOf(b, 'spo2') - meanOf(a, 'spo2') },
  { preset: 'mobile_app', profile: 'casual_user', type: 'outage', at_step: 20, duration: 60, measure: (a) => meanOf(a, 'crash') },
  { preset: 'mobile_app', profile: 'power_user', type: 'promotion', at_step: 20, duration: 60, measure: (a, b) => sumOf(a, 'revenue') - sumOf(b, 'revenue') },
];

function sumOf(records: readonly SimulationRecord[], field: string): number {
  return records.reduce((sum, r) => sum + (r[field] as number), 0);
}
function meanOf(records: readonly SimulationRecord[], field: string): number {
  return sumOf(records, field) / records.length;
}
function sdOf(records: readonly SimulationRecord[], field: string): number {
  const m = meanOf(records, field);
  return Math.sqrt(records.reduce((sum, r) => sum + ((r[field] as number) - m) ** 2, 0) / records.length);
}

/** The window's records of every targeted sequence whole in both runs, and the same steps without the event. */
function matchedPairs(input: SimulationInput, scenario: Scenario, type: string): [SimulationRecord[], SimulationRecord[]] {
  const control = bySequence(generateRecords(input));
  const treated = bySequence(generateRecords({ ...input, scenario }));
  const a: SimulationRecord[] = [];
  const b: SimulationRecord[] = [];
  for (const [id, records] of treated.sequences) {
    const other = control.sequences.get(id);
    if (other === undefined || id >= control.last || id >= treated.last) continue;
    records.forEach((record, i) => {
      if (record.scenario_event !== type || i >= other.length) return;
      a.push(record);
      b.push(other[i]!);
    });
  }
  return [a, b];
}

for (const { preset, profile, type, at_step, duration, measure } of EFFECTS) {
  test(`${preset} ${type}: the effect on matched pairs grows with intensity`, (t) => {
    const input = { preset, profile, seed: 20_261_124, numInteractions: 30_000 };
    const effects = [0.5, 1, 2].map((intensity) => {
      const [treated, control] = matchedPairs(input, { events: [{ type, sequence: 'all', at_step, duration, intensity }] }, type);
      t.true(treated.length > 100, `${type} windows measured`);
      return measure(treated, control);
    });
    // Against the control run, the effect is positive in the direction the catalog states, and larger at
    // higher intensity (volatility is a ratio, 1 meaning no effect).
    const none = type === 'volatility_regime' || type === 'fatigue' ? 1 : 0;
    t.true(effects[0]! > none, `${type} at 0.5: ${effects.join(', ')}`);
    t.true(effects[0]! < effects[1]! && effects[1]! < effects[2]!, `${type}: ${effects.join(', ')}`);
  });
}
