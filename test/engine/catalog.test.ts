import test from 'ava';
import { ENGINE_VERSION, PRESET_NAMES, PRESETS, resolveEngineVersion, resolvePreset } from '../../shared/engine/index.ts';
import { ENGINE_MODELS } from '../../shared/engine/presetModels.ts';
import type { RecordField } from '../../shared/engine/index.ts';

// The interface's Preset table and the catalog of docs/decisions.md#records, verbatim.
const SPEC = [
  {
    name: 'education',
    default_profile: 'average',
    supported_profiles: ['average', 'fast_accurate', 'fast_inaccurate', 'slow_accurate', 'slow_inaccurate'],
    supported_states: ['Optimal', 'Overload', 'Underload'],
    fields: ['response_time_ms', 'correct', 'difficulty', 'cognitive_load'],
  },
  {
    name: 'finance',
    default_profile: 'balanced_investor',
    supported_profiles: ['conservative_investor', 'balanced_investor', 'growth_investor', 'active_trader'],
    supported_states: ['Stable', 'Active', 'Volatile', 'Drawdown', 'Recovered', 'Closed'],
    fields: ['portfolio_value', 'daily_return', 'risk_alert'],
  },
  {
    name: 'healthcare',
    default_profile: 'stable_outpatient',
    supported_profiles: ['stable_outpatient', 'chronic_condition', 'post_operative', 'critical_care'],
    supported_states: ['Stable', 'Elevated', 'Critical', 'Recovering', 'Discharged'],
    fields: ['heart_rate', 'systolic_bp', 'diastolic_bp', 'spo2', 'temperature_c', 'medication_taken', 'alert'],
  },
  {
    name: 'mobile_app',
    default_profile: 'casual_user',
    supported_profiles: ['casual_user', 'power_user', 'new_user', 'churn_risk'],
    supported_states: ['Onboarding', 'Engaged', 'Idle', 'AtRisk', 'Churned'],
    fields: ['event', 'session_duration_s', 'screens_viewed', 'revenue', 'crash'],
  },
];

const FIELD_TYPES: Record<string, RecordField['type']> = {
  sequence_id: 'integer',
  interaction_id: 'integer',
  state: 'string',
  portfolio_value: 'number',
  daily_return: 'number',
  risk_alert: 'integer',
  response_time_ms: 'integer',
  correct: 'integer',
  difficulty: 'number',
  cognitive_load: 'number',
  heart_rate: 'integer',
  systolic_bp: 'integer',
  diastolic_bp: 'integer',
  spo2: 'number',
  temperature_c: 'number',
  medication_taken: 'integer',
  alert: 'integer',
  event: 'string',
  session_duration_s: 'number',
  screens_viewed: 'integer',
  revenue: 'number',
  crash: 'integer',
  scenario_event: 'string',
  event_time: 'string',
};

test('the newest engine is 4.0.0 and every preset is served by engines 4.0.0, 3.0.0, 2.0.0 and 1.0.0, newest first', (t) => {
  t.is(ENGINE_VERSION, '4.0.0');
  for (const preset of PRESETS) t.deepEqual(preset.engine_versions, ['4.0.0', '3.0.0', '2.0.0', '1.0.0'], preset.name);
});

test('engine_version resolves a major to its newest version and an exact version to itself', (t) => {
  t.is(resolveEngineVersion(), '4.0.0');
  t.is(resolveEngineVersion('4'), '4.0.0');
  t.is(resolveEngineVersion('4.0.0'), '4.0.0');
  t.is(resolveEngineVersion('1'), '1.0.0');
  t.is(resolveEngineVersion('2'), '2.0.0');
  t.is(resolveEngineVersion('3'), '3.0.0');
  t.is(resolveEngineVersion('1.0.0'), '1.0.0');
  t.is(resolveEngineVersion('2.0.0'), '2.0.0');
  t.is(resolveEngineVersion('3.0.0'), '3.0.0');
  for (const unknown of ['5', '0', '1.0', '1.0.1', 'v1', '', ' 1', '01', 'latest']) t.is(resolveEngineVersion(unknown), undefined, unknown);
});

test('every engine version publishes the same catalog shape: fields, states, transitions and profiles', (t) => {
  const newest = ENGINE_MODELS.find((engine) => engine.version === '3.0.0');
  const older = ENGINE_MODELS.filter((engine) => engine.version < '3.0.0');
  const names = (fields: readonly { name: string }[]): string[] => fields.map((f) => f.name);
  for (const engine of older) {
    for (const name of PRESET_NAMES) {
      const a = newest!.models[name];
      const b = engine.models[name];
      // Engine 3 adds scenario_event, last; every other field keeps its name, kind and place.
      t.deepEqual(names(a.fields), [...names(b.fields), 'scenario_event'], `${name} ${engine.version}`);
      t.deepEqual(
        [b.fields.map((f) => [f.name, f.kind, f.decimals, f.values]), b.states, b.transitions, b.profiles, b.defaultProfile, b.startStates],
        [a.fields.slice(0, -1).map((f) => [f.name, f.kind, f.decimals, f.values]), a.states, a.transitions, a.profiles, a.defaultProfile, a.startStates],
        `${name} ${engine.version}`,
      );
      t.is(b.scenarioEvents, undefined, `${name} ${engine.version} has no scenarios`);
    }
  }
});

test('engine 4 publishes engine 3\'s catalog with event_time after interaction_id', (t) => {
  const [four, three] = ENGINE_MODELS;
  t.is(four!.version, '4.0.0');
  for (const name of PRESET_NAMES) {
    const a = four!.models[name];
    const b = three!.models[name];
    const shape = (fields: typeof a.fields) => fields.map((f) => [f.name, f.kind, f.decimals, f.values]);
    t.deepEqual(shape(a.fields), [...shape(b.fields.slice(0, 2)), ['event_time', 'timestamp', 0, []], ...shape(b.fields.slice(2))], name);
    t.deepEqual([a.states, a.transitions, a.profiles, a.defaultProfile, a.startStates, a.scenarioEvents], [b.states, b.transitions, b.profiles, b.defaultProfile, b.startStates, b.scenarioEvents], name);
  }
});

test('record_fields_by_engine names each engine version\'s fields; record_fields describes the newest', (t) => {
  for (const preset of PRESETS) {
    t.deepEqual(Object.keys(preset.record_fields_by_engine), ['4.0.0', '3.0.0', '2.0.0', '1.0.0'], preset.name);
    t.deepEqual(preset.record_fields_by_engine['4.0.0'], preset.record_fields.map((f) => f.name), preset.name);
    const three = preset.record_fields.map((f) => f.name).filter((name) => name !== 'event_time');
    t.deepEqual(preset.record_fields_by_engine['3.0.0'], three, preset.name);
    t.deepEqual(preset.record_fields_by_engine['2.0.0'], three.slice(0, -1), preset.name);
    t.deepEqual(preset.record_fields_by_engine['1.0.0'], preset.record_fields_by_engine['2.0.0'], preset.name);
  }
});

test('every preset lists its scenario events with a description and a measurable effect', (t) => {
  const TYPES: Record<string, string[]> = {
    education: ['fatigue', 'difficulty_spike', 'mastery_jump'],
    finance: ['market_crash', 'volatility_regime', 'rally'],
    healthcare: ['sepsis_onset', 'missed_medication', 'hypoxia'],
    mobile_app: ['outage', 'promotion', 'churn_wave'],
  };
  for (const preset of PRESETS) {
    t.deepEqual(preset.scenario_events.map((e) => e.type), TYPES[preset.name], preset.name);
    for (const event of preset.scenario_events) {
      t.deepEqual(Object.keys(event), ['type', 'description', 'effect'], `${preset.name}.${event.type}`);
      t.true(event.description.length > 40 && event.effect.length > 20, `${preset.name}.${event.type}`);
    }
  }
});

test('the catalog lists the four presets in order with the specification\'s profiles and states', (t) => {
  t.deepEqual(
    PRESETS.map((p) => ({
      name: p.name,
      default_profile: p.default_profile,
      supported_profiles: [...p.supported_profiles],
      supported_states: [...p.supported_states],
    })),
    SPEC.map(({ fields: _fields, ...rest }) => rest),
  );
});

test('every preset is available, described, and only mobile_app has an alias', (t) => {
  for (const preset of PRESETS) {
    t.true(preset.available, preset.name);
    t.true(preset.description.length > 20, preset.name);
    t.deepEqual([...preset.aliases], preset.name === 'mobile_app' ? ['mobile'] : [], preset.name);
  }
});

test('record_fields list sequence_id, interaction_id, event_time, state, then the preset fields in the documented order', (t) => {
  for (const spec of SPEC) {
    const preset = PRESETS.find((p) => p.name === spec.name)!;
    const names = preset.record_fields.map((f) => f.name);
    t.deepEqual(names, ['sequence_id', 'interaction_id', 'event_time', 'state', ...spec.fields, 'scenario_event'], spec.name);
    for (const field of preset.record_fields) {
      t.is(field.type, FIELD_TYPES[field.name]!, `${spec.name}.${field.name}`);
      t.true(field.description.length > 5, `${spec.name}.${field.name}`);
    }
  }
});

test('state_transitions cover every state, lead only to supported states, and terminal states lead nowhere', (t) => {
  const terminal: Record<string, string | undefined> = {
    education: undefined,
    finance: 'Closed',
    healthcare: 'Discharged',
    mobile_app: 'Churned',
  };
  for (const preset of PRESETS) {
    t.deepEqual(Object.keys(preset.state_transitions), [...preset.supported_states], preset.name);
    for (const [from, targets] of Object.entries(preset.state_transitions)) {
      for (const to of targets) t.true(preset.supported_states.includes(to), `${preset.name}: ${from} -> ${to}`);
      if (from === terminal[preset.name]) t.deepEqual([...targets], [], `${preset.name}: ${from} is terminal`);
      else t.true(targets.includes(from), `${preset.name}: ${from} may persist`);
    }
  }
});

test('finance publishes Recovered as reachable only from Drawdown', (t) => {
  const finance = PRESETS.find((p) => p.name === 'finance')!;
  const into = Object.entries(finance.state_transitions)
    .filter(([from, targets]) => from !== 'Recovered' && targets.includes('Recovered'))
    .map(([from]) => from);
  t.deepEqual(into, ['Drawdown']);
});

test('the catalog is deeply frozen', (t) => {
  t.true(Object.isFrozen(PRESETS));
  for (const preset of PRESETS) {
    t.true(Object.isFrozen(preset));
    t.true(Object.isFrozen(preset.supported_profiles));
    t.true(Object.isFrozen(preset.record_fields[0]));
    t.true(Object.isFrozen(preset.state_transitions));
    t.true(Object.isFrozen(Object.values(preset.state_transitions)[0]));
  }
  t.throws(() => {
    (PRESETS[0] as { description: string }).description = 'changed';
  });
});

test('resolvePreset finds presets by exact name or alias and nothing else', (t) => {
  for (const preset of PRESETS) t.is(resolvePreset(preset.name), preset);
  t.is(resolvePreset('mobile')?.name, 'mobile_app');
  t.is(resolvePreset('Mobile'), undefined);
  t.is(resolvePreset('FINANCE'), undefined);
  t.is(resolvePreset(' finance'), undefined);
  t.is(resolvePreset('crypto'), undefined);
  t.is(resolvePreset(''), undefined);
  t.is(resolvePreset('constructor'), undefined);
});
