import test from 'ava';
import { PRESETS } from '../../shared/engine/index.ts';
import { mean, sampleRecords, standardDeviation, stateShare } from './helpers/sampleRecords.ts';

// Fixed seeds and 20,000 records per profile; every margin below is far inside what the models produce
// (measured ratios are noted), so these never flake yet fail if a profile stops behaving as named.

test('every supported state is reached by every profile within 20,000 records', (t) => {
  for (const preset of PRESETS) {
    for (const profile of preset.supported_profiles) {
      const records = sampleRecords(preset.name, profile);
      for (const state of preset.supported_states) {
        const count = records.filter((r) => r.state === state).length;
        t.true(count >= 5, `${preset.name}/${profile} reaches ${state} (${count} records)`);
      }
    }
  }
});

test('education: fast profiles answer faster than slow ones', (t) => {
  const time = (profile: string) => mean(sampleRecords('education', profile).map((r) => r.response_time_ms as number));
  // Measured: fast ~4,300-5,300 ms, slow ~16,800-17,600 ms.
  for (const fast of ['fast_accurate', 'fast_inaccurate']) {
    for (const slow of ['slow_accurate', 'slow_inaccurate']) {
      t.true(time(fast) < 0.6 * time(slow), `${fast} vs ${slow}`);
    }
    t.true(time(fast) < time('average'), fast);
  }
  for (const slow of ['slow_accurate', 'slow_inaccurate']) t.true(time(slow) > time('average'), slow);
});

test('education: accurate profiles answer correctly more often than inaccurate ones', (t) => {
  const rate = (profile: string) => mean(sampleRecords('education', profile).map((r) => r.correct as number));
  // Measured: accurate ~0.77-0.78, inaccurate ~0.46-0.51.
  for (const accurate of ['fast_accurate', 'slow_accurate']) {
    for (const inaccurate of ['fast_inaccurate', 'slow_inaccurate']) {
      t.true(rate(accurate) > rate(inaccurate) + 0.12, `${accurate} vs ${inaccurate}`);
    }
    t.true(rate(accurate) > rate('average'), accurate);
  }
  for (const inaccurate of ['fast_inaccurate', 'slow_inaccurate']) t.true(rate(inaccurate) < rate('average'), inaccurate);
});

test('finance: the spread of daily_return rises from conservative to balanced to growth to active_trader', (t) => {
  const order = ['conservative_investor', 'balanced_investor', 'growth_investor', 'active_trader'];
  const spreads = order.map((p) => standardDeviation(sampleRecords('finance', p).map((r) => r.daily_return as number)));
  // Measured ratios between neighbours: ~2.2, ~1.6, ~1.4.
  for (let i = 1; i < spreads.length; i++) {
    t.true(spreads[i]! > 1.2 * spreads[i - 1]!, `${order[i]} (${spreads[i]}) vs ${order[i - 1]} (${spreads[i - 1]})`);
  }
});

test('finance: active traders spend the most time in Active', (t) => {
  const share = (p: string) => stateShare(sampleRecords('finance', p), 'Active');
  const trader = share('active_trader');
  // Measured: ~0.62 for active_trader, at most ~0.26 for the others.
  t.true(trader > 0.45);
  for (const p of ['conservative_investor', 'balanced_investor', 'growth_investor']) t.true(trader > 1.5 * share(p), p);
  // Active is also the trader's most common state.
  const records = sampleRecords('finance', 'active_trader');
  for (const state of PRESETS[1]!.supported_states) if (state !== 'Active') t.true(trader > stateShare(records, state), state);
});

test('healthcare: critical_care spends the most time in Critical', (t) => {
  const share = (p: string) => stateShare(sampleRecords('healthcare', p), 'Critical');
  const critical = share('critical_care');
  // Measured: ~0.62 for critical_care, under 0.1 for the others.
  t.true(critical > 0.4);
  for (const p of ['stable_outpatient', 'chronic_condition', 'post_operative']) t.true(critical > 3 * share(p), p);
});

test('mobile_app: churn_risk users reach Churned most often', (t) => {
  const churned = (p: string) => sampleRecords('mobile_app', p).filter((r) => r.state === 'Churned').length;
  // Measured: ~600 churns per 20,000 events for churn_risk, at most ~100 for the others.
  for (const p of ['casual_user', 'power_user', 'new_user']) t.true(churned('churn_risk') > 3 * churned(p), p);
});

test('mobile_app: power users have the longest sessions', (t) => {
  const duration = (p: string) =>
    mean(sampleRecords('mobile_app', p).map((r) => r.session_duration_s as number));
  const screens = (p: string) => mean(sampleRecords('mobile_app', p).map((r) => r.screens_viewed as number));
  // Measured: ~415 s for power_user, at most ~155 s for the others.
  for (const p of ['casual_user', 'new_user', 'churn_risk']) {
    t.true(duration('power_user') > 2 * duration(p), p);
    t.true(screens('power_user') > 1.5 * screens(p), p);
  }
});
