import test from 'ava';
import { ENGINE_VERSION, PRESET_NAMES, PRESETS } from '../../shared/engine/index.ts';
import { FIDELITY_INTERACTIONS, measureFidelity } from '../../shared/engine/fidelity/measureFidelity.ts';
import { publishedFidelity } from '../../shared/engine/fidelity/publishedFidelity.ts';

// Every stylized fact of DECISIONS "Fidelity", for every profile, measured afresh on the fixed seeds of the
// newest engine: a fact that does not hold fails the build. ~4 s of generation for all presets.
const fresh = PRESET_NAMES.map((preset) => measureFidelity(preset, ENGINE_VERSION));

for (const report of fresh) {
  test(`${report.preset}: every stylized fact holds for every profile on ${ENGINE_VERSION}`, (t) => {
    const preset = PRESETS.find((p) => p.name === report.preset)!;
    t.deepEqual(report.sample.map((s) => s.profile), [...preset.supported_profiles]);
    for (const sample of report.sample) t.true(sample.num_interactions >= 100_000 && sample.num_interactions === FIDELITY_INTERACTIONS);
    for (const profile of preset.supported_profiles) t.true(report.facts.some((f) => f.profile === profile), `${profile} has facts`);
    for (const fact of report.facts) t.true(fact.holds, `${fact.profile} ${fact.name}: ${fact.value} (target ${fact.target})`);
  });

  test(`${report.preset}: the published fidelity report equals a fresh measurement`, (t) => {
    // The API serves the committed report; regenerate it with `npm run fidelity -- --write`.
    t.deepEqual(publishedFidelity(report.preset, ENGINE_VERSION), report);
  });
}

test('the facts each preset must hold are all measured', (t) => {
  const names = (preset: string) => new Set(fresh.find((r) => r.preset === preset)!.facts.map((f) => f.name));
  t.deepEqual([...names('finance')].sort(), [
    'aggregational_gaussianity',
    'gain_loss_asymmetry',
    'heavy_tails',
    'leverage_effect',
    'no_linear_autocorrelation',
    'volatility_clustering_lag_1',
    'volatility_clustering_lag_20',
    'volatility_clustering_lag_50',
  ]);
  t.deepEqual([...names('education')].sort(), [
    'cognitive_load_highest_in_overload',
    'cognitive_load_lowest_in_underload',
    'harder_items_less_correct',
    'log_response_time_symmetric',
    'response_time_right_skewed',
  ]);
  t.deepEqual([...names('healthcare')].sort(), [
    'critical_heart_rate_higher',
    'critical_spo2_lower',
    'heart_rate_autocorrelated',
    'systolic_above_diastolic',
    'vitals_within_bounds',
  ]);
  t.deepEqual([...names('mobile_app')].sort(), [
    'early_churn_ordered',
    'revenue_heavy_tailed',
    'revenue_zero_inflated',
    'session_duration_heavy_tailed',
  ]);
  // The early-churn order compares churn_risk > casual_user > power_user.
  const churn = fresh.find((r) => r.preset === 'mobile_app')!.facts.filter((f) => f.name === 'early_churn_ordered');
  t.deepEqual(churn.map((f) => f.profile), ['churn_risk', 'casual_user', 'power_user']);
});
