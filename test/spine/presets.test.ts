import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';

let app: TestApp;

test.before(async () => {
  app = await startTestApp();
});

test.after.always(async () => {
  await app?.close();
});

interface PresetBody {
  name: string;
  description: string;
  available: boolean;
  default_profile: string;
  supported_profiles: string[];
  supported_states: string[];
  aliases: string[];
  state_transitions: Record<string, string[]>;
}

// The interface's preset table and that of docs/decisions.md#records, verbatim.
const EXPECTED = {
  education: {
    default_profile: 'average',
    supported_profiles: ['average', 'fast_accurate', 'fast_inaccurate', 'slow_accurate', 'slow_inaccurate'],
    supported_states: ['Optimal', 'Overload', 'Underload'],
  },
  finance: {
    default_profile: 'balanced_investor',
    supported_profiles: ['conservative_investor', 'balanced_investor', 'growth_investor', 'active_trader'],
    supported_states: ['Stable', 'Active', 'Volatile', 'Drawdown', 'Recovered', 'Closed'],
  },
  healthcare: {
    default_profile: 'stable_outpatient',
    supported_profiles: ['stable_outpatient', 'chronic_condition', 'post_operative', 'critical_care'],
    supported_states: ['Stable', 'Elevated', 'Critical', 'Recovering', 'Discharged'],
  },
  mobile_app: {
    default_profile: 'casual_user',
    supported_profiles: ['casual_user', 'power_user', 'new_user', 'churn_risk'],
    supported_states: ['Onboarding', 'Engaged', 'Idle', 'AtRisk', 'Churned'],
  },
} as const;

test('GET /v1/presets lists the four presets with the specification data', async (t) => {
  const response = await fetch(`${app.url}/v1/presets`);
  t.is(response.status, 200);
  t.regex(response.headers.get('content-type') ?? '', /application\/json/);
  const presets = (await response.json()) as PresetBody[];
  t.deepEqual(
    presets.map((preset) => preset.name),
    ['education', 'finance', 'healthcare', 'mobile_app'],
  );
  for (const preset of presets) {
    const expected = EXPECTED[preset.name as keyof typeof EXPECTED];
    t.is(preset.default_profile, expected.default_profile, preset.name);
    t.deepEqual(preset.supported_profiles, [...expected.supported_profiles], preset.name);
    t.deepEqual(preset.supported_states, [...expected.supported_states], preset.name);
    t.is(preset.available, true);
    t.true(preset.description.length > 0);
    t.deepEqual(Object.keys(preset.state_transitions).sort(), [...expected.supported_states].sort());
  }
});

test('GET /v1/presets/{preset} returns one preset, and the alias mobile resolves to mobile_app', async (t) => {
  const finance = await fetch(`${app.url}/v1/presets/finance`);
  t.is(finance.status, 200);
  t.like(await finance.json(), { name: 'finance', default_profile: 'balanced_investor' });

  const mobile = await fetch(`${app.url}/v1/presets/mobile`);
  t.is(mobile.status, 200);
  t.like(await mobile.json(), { name: 'mobile_app', aliases: ['mobile'] });
});

test('GET /v1/presets/{preset} with an unknown name answers 404 preset_not_found in the error envelope', async (t) => {
  const response = await fetch(`${app.url}/v1/presets/astrology`, { headers: { 'X-Request-ID': 'preset-probe-1' } });
  t.is(response.status, 404);
  t.deepEqual(await response.json(), {
    error: {
      message: 'No preset is named "astrology".',
      status_code: 404,
      details: { code: 'preset_not_found' },
      request_id: 'preset-probe-1',
    },
  });
});

test('preset names are case-sensitive: FINANCE is not a preset', async (t) => {
  const response = await fetch(`${app.url}/v1/presets/FINANCE`);
  t.is(response.status, 404);
});

test('GET /v1/presets and /v1/presets/{preset} list the engine versions that serve each preset, newest first', async (t) => {
  const presets = (await (await fetch(`${app.url}/v1/presets`)).json()) as (PresetBody & { engine_versions: string[] })[];
  for (const preset of presets) t.deepEqual(preset.engine_versions, ['4.0.0', '3.0.0', '2.0.0', '1.0.0'], preset.name);
  const mobile = (await (await fetch(`${app.url}/v1/presets/mobile`)).json()) as { engine_versions: string[] };
  t.deepEqual(mobile.engine_versions, ['4.0.0', '3.0.0', '2.0.0', '1.0.0']);
});

// docs/decisions.md#fidelity: the catalog's scenario events (at least the twelve of its table) and each
// engine's fields.
const SCENARIO_EVENTS = {
  education: ['fatigue', 'difficulty_spike', 'mastery_jump'],
  finance: ['market_crash', 'volatility_regime', 'rally'],
  healthcare: ['sepsis_onset', 'missed_medication', 'hypoxia'],
  mobile_app: ['outage', 'promotion', 'churn_wave'],
} as const;

test('GET /v1/presets lists each preset\'s scenario_events and record_fields_by_engine; record_fields are the newest engine\'s', async (t) => {
  const presets = (await (await fetch(`${app.url}/v1/presets`)).json()) as (PresetBody & {
    record_fields: { name: string; type: string }[];
    scenario_events: { type: string; description: string; effect: string }[];
    record_fields_by_engine: Record<string, string[]>;
  })[];
  for (const preset of presets) {
    const name = preset.name as keyof typeof SCENARIO_EVENTS;
    t.deepEqual(preset.scenario_events.map((e) => e.type), [...SCENARIO_EVENTS[name]], name);
    for (const event of preset.scenario_events) {
      t.deepEqual(Object.keys(event), ['type', 'description', 'effect']);
      t.true(event.description.length > 40 && event.effect.length > 20, `${name}.${event.type}`);
    }
    const fields = preset.record_fields.map((f) => f.name);
    t.is(fields.at(-1), 'scenario_event', name);
    t.deepEqual(preset.record_fields.at(-1)!.type, 'string');
    // Engine 4 adds event_time after interaction_id; engine 3's are the rest.
    t.deepEqual(fields.slice(0, 4), ['sequence_id', 'interaction_id', 'event_time', 'state'], name);
    const three = fields.filter((field) => field !== 'event_time');
    t.deepEqual(preset.record_fields_by_engine, { '4.0.0': fields, '3.0.0': three, '2.0.0': three.slice(0, -1), '1.0.0': three.slice(0, -1) }, name);
  }
});

interface FidelityBody {
  preset: string;
  service_version: string;
  sample: { profile: string; seed: number; num_interactions: number }[];
  facts: { name: string; description: string; profile: string; target: string; value: number; holds: boolean }[];
}

test('GET /v1/presets/{preset}/fidelity is public and reports every profile\'s facts on >= 100,000 interactions', async (t) => {
  for (const name of Object.keys(EXPECTED) as (keyof typeof EXPECTED)[]) {
    const response = await fetch(`${app.url}/v1/presets/${name}/fidelity`);
    t.is(response.status, 200, name);
    t.regex(response.headers.get('content-type') ?? '', /application\/json/);
    const body = (await response.json()) as FidelityBody;
    t.deepEqual(Object.keys(body), ['preset', 'service_version', 'sample', 'facts']);
    t.is(body.preset, name);
    t.is(body.service_version, '4.0.0');
    t.deepEqual(body.sample.map((s) => s.profile), [...EXPECTED[name].supported_profiles]);
    for (const sample of body.sample) {
      t.true(Number.isInteger(sample.seed));
      t.true(sample.num_interactions >= 100_000);
    }
    for (const profile of EXPECTED[name].supported_profiles) t.true(body.facts.some((f) => f.profile === profile), `${name}/${profile}`);
    for (const fact of body.facts) {
      t.deepEqual(Object.keys(fact), ['name', 'description', 'profile', 'target', 'value', 'holds']);
      t.true(fact.description.length > 0 && fact.target.length > 0 && Number.isFinite(fact.value));
      t.true(fact.holds, `${name}/${fact.profile} ${fact.name}`);
    }
  }
  const finance = (await (await fetch(`${app.url}/v1/presets/finance/fidelity`)).json()) as FidelityBody;
  t.true(finance.facts.some((f) => f.name === 'volatility_clustering_lag_20' && f.target === '≥ 0.05'));
  // Engine 3's calibrated facts and one fact (or more) per scenario event type, for every profile.
  t.true(finance.facts.some((f) => f.name === 'calibrated_abs_autocorrelation_lag_100' && f.target === '≥ 0.04'));
  for (const type of SCENARIO_EVENTS.finance) t.true(finance.facts.some((f) => f.name.startsWith(`scenario_${type}_`)), type);
});

test('GET /v1/presets/{preset}/fidelity?engine_version= serves any kept engine\'s report, a major or an exact version', async (t) => {
  for (const [requested, exact] of [['1', '1.0.0'], ['2.0.0', '2.0.0'], ['2', '2.0.0'], ['3', '3.0.0'], ['3.0.0', '3.0.0']] as const) {
    const response = await fetch(`${app.url}/v1/presets/healthcare/fidelity?engine_version=${requested}`);
    t.is(response.status, 200, requested);
    const body = (await response.json()) as FidelityBody;
    t.is(body.service_version, exact, requested);
    // Engine 3 adds facts; engines 1 and 2 measure the same (engine 1 predates them, so not all hold).
    t.is(body.facts.some((f) => f.name === 'calibrated_chronic_adherence'), exact === '3.0.0', requested);
  }
  const two = (await (await fetch(`${app.url}/v1/presets/finance/fidelity?engine_version=2`)).json()) as FidelityBody;
  t.true(two.facts.every((f) => f.holds));
  t.false(two.facts.some((f) => f.name.startsWith('scenario_')));
});

test('GET /v1/presets/{preset}/fidelity refuses an unknown engine_version or query parameter with 422 validation_failed', async (t) => {
  for (const query of ['engine_version=5', 'engine_version=1.0', 'engine_version=latest', 'engine_version=', 'version=2']) {
    const response = await fetch(`${app.url}/v1/presets/finance/fidelity?${query}`);
    t.is(response.status, 422, query);
    const body = (await response.json()) as { error: { details: { code: string; issues: { path: string }[] } } };
    t.is(body.error.details.code, 'validation_failed', query);
    t.true(body.error.details.issues.length > 0, query);
  }
});

test('GET /v1/presets/{preset}/fidelity accepts the alias and refuses an unknown preset with 404 preset_not_found', async (t) => {
  const mobile = await fetch(`${app.url}/v1/presets/mobile/fidelity`);
  t.is(mobile.status, 200);
  t.is(((await mobile.json()) as FidelityBody).preset, 'mobile_app');
  const unknown = await fetch(`${app.url}/v1/presets/astrology/fidelity`);
  t.is(unknown.status, 404);
  t.is(((await unknown.json()) as { error: { details: { code: string } } }).error.details.code, 'preset_not_found');
});
