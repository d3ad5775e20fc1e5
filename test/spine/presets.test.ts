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

// The specification's and DECISIONS' preset tables, verbatim.
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
