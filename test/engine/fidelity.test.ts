import test from 'ava';
import { ENGINE_VERSION, PRESET_NAMES, PRESETS } from '../../shared/engine/index.ts';
import { FIDELITY_INTERACTIONS, measureFidelity } from '../../shared/engine/fidelity/measureFidelity.ts';
import { publishedFidelity } from '../../shared/engine/fidelity/publishedFidelity.ts';
import { ENGINE_MODELS } from '../../shared/engine/presetModels.ts';

// Every stylized fact of docs/decisions.md#fidelity, for every profile, measured afresh on the fixed seeds of the
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

// Every kept engine's report is served (GET /v1/presets/{preset}/fidelity?engine_version=), so each must be
// what that engine measures today: its output never changes, so neither may its report.
for (const version of ENGINE_MODELS.map((engine) => engine.version).filter((v) => v !== ENGINE_VERSION)) {
  test(`engine ${version}: every preset's published fidelity report equals a fresh measurement`, (t) => {
    for (const preset of PRESET_NAMES) t.deepEqual(publishedFidelity(preset, version), measureFidelity(preset, version), preset);
  });
}

test('the facts each preset must hold are all measured', (t) => {
  // Engine 4's clock facts are asserted in the next test; these are the facts every engine since 3 measures.
  const names = (preset: string) => new Set(fresh.find((r) => r.preset === preset)!.facts.map((f) => f.name).filter((name) => !name.startsWith('clock_')));
  t.deepEqual([...names('finance')].sort(), [
    'aggregational_gaussianity',
    'calibrated_abs_autocorrelation_lag_1',
    'calibrated_abs_autocorrelation_lag_100',
    'calibrated_abs_autocorrelation_lag_20',
    'calibrated_kurtosis',
    ...Array.from({ length: 10 }, (_, k) => `calibrated_leverage_lag_${k + 1}`).sort(),
    'calibrated_slow_decay',
    'gain_loss_asymmetry',
    'heavy_tails',
    'leverage_effect',
    'no_linear_autocorrelation',
    'scenario_market_crash_return',
    'scenario_market_crash_risk_alert',
    'scenario_rally_return',
    'scenario_volatility_regime_sd',
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
    'scenario_difficulty_spike_correct',
    'scenario_difficulty_spike_difficulty',
    'scenario_fatigue_correct',
    'scenario_fatigue_response_time',
    'scenario_mastery_jump_cognitive_load',
    'scenario_mastery_jump_correct',
  ]);
  t.deepEqual([...names('healthcare')].sort(), [
    'calibrated_chronic_adherence',
    'critical_heart_rate_higher',
    'critical_spo2_lower',
    'heart_rate_autocorrelated',
    'scenario_hypoxia_alert',
    'scenario_hypoxia_spo2',
    'scenario_missed_medication_systolic',
    'scenario_missed_medication_taken',
    'scenario_sepsis_onset_critical',
    'scenario_sepsis_onset_heart_rate',
    'scenario_sepsis_onset_spo2',
    'scenario_sepsis_onset_temperature',
    'systolic_above_diastolic',
    'vitals_within_bounds',
  ]);
  t.deepEqual([...names('mobile_app')].sort(), [
    'early_churn_ordered',
    'revenue_heavy_tailed',
    'revenue_zero_inflated',
    'scenario_churn_wave_churned',
    'scenario_outage_crash',
    'scenario_outage_session_duration',
    'scenario_promotion_paying',
    'scenario_promotion_revenue',
    'session_duration_heavy_tailed',
  ]);
  // Every profile holds every calibrated and scenario fact; chronic adherence is chronic_condition's alone.
  const finance = fresh.find((r) => r.preset === 'finance')!;
  for (const profile of PRESETS[1]!.supported_profiles) {
    t.is(finance.facts.filter((f) => f.profile === profile && f.name.startsWith('calibrated_leverage_lag_')).length, 10, profile);
  }
  t.deepEqual(
    fresh.find((r) => r.preset === 'healthcare')!.facts.filter((f) => f.name === 'calibrated_chronic_adherence').map((f) => f.profile),
    ['chronic_condition'],
  );
  // The early-churn order compares churn_risk > casual_user > power_user.
  const churn = fresh.find((r) => r.preset === 'mobile_app')!.facts.filter((f) => f.name === 'early_churn_ordered');
  t.deepEqual(churn.map((f) => f.profile), ['churn_risk', 'casual_user', 'power_user']);
});

test('engine 4 measures the clock facts of every preset, for every profile', (t) => {
  const CLOCK: Record<string, string[]> = {
    finance: ['clock_increasing_within_sequence', 'clock_weekdays_only', 'clock_market_close', 'clock_next_trading_day'],
    education: ['clock_increasing_within_sequence', 'clock_sessions_on_separate_days', 'clock_session_within_a_day', 'clock_item_after_answer'],
    healthcare: ['clock_increasing_within_sequence', 'clock_denser_in_critical'],
    mobile_app: [
      'clock_increasing_within_sequence',
      'clock_session_time',
      'clock_diurnal_cycle',
      'clock_weekly_cycle',
      'clock_session_gap_median_hours',
      'clock_session_gaps_heavy_tailed',
    ],
  };
  for (const report of fresh) {
    for (const profile of PRESETS.find((p) => p.name === report.preset)!.supported_profiles) {
      const names = report.facts.filter((f) => f.profile === profile && f.name.startsWith('clock_')).map((f) => f.name);
      t.deepEqual(names, CLOCK[report.preset], `${report.preset} ${profile}`);
    }
  }
});
