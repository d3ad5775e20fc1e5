import test from 'ava';
import { PRESETS } from '../../shared/engine/index.ts';
import type { PresetDefinition, SimulationRecord } from '../../shared/engine/index.ts';
import { presetModels } from '../../shared/engine/presetModels.ts';
import { sampleRecords, sequencesOf } from './helpers/sampleRecords.ts';

const TERMINAL: Record<string, string | undefined> = {
  education: undefined,
  finance: 'Closed',
  healthcare: 'Discharged',
  mobile_app: 'Churned',
};

// Decimals per number field, from each preset page's Records (docs/decisions.md#records; session_duration_s: 1
// decimal by engine choice).
const DECIMALS: Record<string, number> = {
  portfolio_value: 2,
  daily_return: 6,
  difficulty: 3,
  cognitive_load: 3,
  spo2: 1,
  temperature_c: 1,
  session_duration_s: 1,
  revenue: 2,
};

function forEachSample(fn: (preset: PresetDefinition, profile: string, records: SimulationRecord[]) => void): void {
  for (const preset of PRESETS) {
    for (const profile of preset.supported_profiles) fn(preset, profile, sampleRecords(preset.name, profile));
  }
}

function hasAtMostDecimals(x: number, decimals: number): boolean {
  return new RegExp(`^-?\\d+(\\.\\d{1,${decimals}})?$`).test(JSON.stringify(x));
}

test('every record has exactly the published fields, in order, with the published types', (t) => {
  forEachSample((preset, profile, records) => {
    const names = preset.record_fields.map((f) => f.name);
    let bad = 0;
    for (const record of records) {
      if (JSON.stringify(Object.keys(record)) !== JSON.stringify(names)) bad++;
      for (const field of preset.record_fields) {
        const value = record[field.name];
        const ok =
          // Engine 3's scenario_event is null outside every event (these samples have no scenario).
          field.name === 'scenario_event' ? value === null
          : field.type === 'string' ? typeof value === 'string'
          : field.type === 'integer' ? Number.isSafeInteger(value)
          : typeof value === 'number' && Number.isFinite(value) && hasAtMostDecimals(value, DECIMALS[field.name]!);
        if (!ok) bad++;
      }
    }
    t.is(bad, 0, `${preset.name}/${profile}`);
  });
});

test('interaction_id counts 1..n and sequence_id starts at 1 and steps by one', (t) => {
  forEachSample((preset, profile, records) => {
    t.is(records[0]!.sequence_id, 1);
    let bad = 0;
    records.forEach((record, i) => {
      if (record.interaction_id !== i + 1) bad++;
      if (i > 0) {
        const step = (record.sequence_id as number) - (records[i - 1]!.sequence_id as number);
        if (step !== 0 && step !== 1) bad++;
      }
    });
    t.is(bad, 0, `${preset.name}/${profile}`);
  });
});

test('a sequence starts in its start state and ends exactly at a terminal state or its episode length', (t) => {
  forEachSample((preset, profile, records) => {
    const model = presetModels[preset.name];
    const sequences = sequencesOf(records);
    t.true(sequences.length > 5, `${preset.name}/${profile} has several sequences`);
    sequences.forEach((sequence, k) => {
      const label = `${preset.name}/${profile} sequence ${k + 1}`;
      t.is(sequence[0]!.state, model.startStates[profile], label);
      t.true(sequence.length <= model.episodeLength, label);
      const terminalAt = sequence.findIndex((r) => r.state === TERMINAL[preset.name]);
      // A terminal state can only be the last record of its sequence.
      t.true(terminalAt === -1 || terminalAt === sequence.length - 1, label);
      if (k < sequences.length - 1) {
        // Every finished sequence ended for one of the two reasons.
        t.true(terminalAt !== -1 || sequence.length === model.episodeLength, label);
      }
    });
  });
});

test('every change of state within a sequence is a published transition', (t) => {
  forEachSample((preset, profile, records) => {
    const seen = new Set<string>();
    let bad = 0;
    for (const sequence of sequencesOf(records)) {
      for (let i = 1; i < sequence.length; i++) {
        const from = sequence[i - 1]!.state as string;
        const to = sequence[i]!.state as string;
        seen.add(`${from}->${to}`);
        if (!(preset.state_transitions[from] ?? []).includes(to)) bad++;
      }
    }
    t.is(bad, 0, `${preset.name}/${profile}`);
    t.true(seen.size >= preset.supported_states.length, `${preset.name}/${profile} moves between states`);
  });
});

test('finance values compound the published daily returns, stay positive and keep 2 and 6 decimals', (t) => {
  for (const profile of PRESETS[1]!.supported_profiles) {
    let bad = 0;
    for (const sequence of sequencesOf(sampleRecords('finance', profile))) {
      sequence.forEach((record, i) => {
        const value = record.portfolio_value as number;
        const r = record.daily_return as number;
        if (!(value > 0) || !(r > -1 && r < 1)) bad++;
        if (![0, 1].includes(record.risk_alert as number)) bad++;
        if (i > 0) {
          const previousCents = Math.round((sequence[i - 1]!.portfolio_value as number) * 100);
          if (Math.round(previousCents * (1 + r)) !== Math.round(value * 100)) bad++;
        }
      });
    }
    t.is(bad, 0, profile);
  }
});

const BASE_VOLATILITY: Record<string, number> = {
  conservative_investor: 0.003,
  balanced_investor: 0.006,
  growth_investor: 0.009,
  active_trader: 0.012,
};

test('finance raises risk_alert on deep drawdowns from the sequence peak, outsized moves and high EWMA volatility', (t) => {
  for (const profile of PRESETS[1]!.supported_profiles) {
    let missed = 0;
    let spurious = 0;
    let alerts = 0;
    for (const sequence of sequencesOf(sampleRecords('finance', profile))) {
      let peak = 0;
      // Engine 3 also alerts on RiskMetrics' EWMA volatility (lambda 0.94) of the published returns
      // reaching 2.5 x the profile's daily volatility (0.3%-1.2%), from the profile's level at opening.
      let variance = BASE_VOLATILITY[profile]! ** 2;
      for (const record of sequence) {
        const value = record.portfolio_value as number;
        peak = Math.max(peak, value);
        const drawdown = 1 - value / peak;
        const r = record.daily_return as number;
        const move = Math.abs(r);
        variance = 0.94 * variance + 0.06 * r * r;
        const volatility = Math.sqrt(variance);
        alerts += record.risk_alert as number;
        // Every profile's limits lie between these bounds: 6-25% drawdown, 1.5-7% daily move, 0.75-3% volatility.
        if ((drawdown >= 0.25 || move >= 0.07 || volatility >= 0.0301) && record.risk_alert !== 1) missed++;
        if (drawdown < 0.059 && move < 0.0149 && volatility < 0.0074 && record.risk_alert !== 0) spurious++;
      }
    }
    t.is(missed, 0, profile);
    t.is(spurious, 0, profile);
    t.true(alerts > 0, profile);
  }
});

test('education fields stay in range and cognitive_load agrees with the load state', (t) => {
  for (const profile of PRESETS[0]!.supported_profiles) {
    let bad = 0;
    for (const record of sampleRecords('education', profile)) {
      const load = record.cognitive_load as number;
      const difficulty = record.difficulty as number;
      if (!((record.response_time_ms as number) > 0)) bad++;
      if (![0, 1].includes(record.correct as number)) bad++;
      if (!(difficulty >= 0 && difficulty <= 1)) bad++;
      if (!(load >= 0 && load <= 1)) bad++;
      const band =
        record.state === 'Underload' ? load < 0.35
        : record.state === 'Overload' ? load >= 0.7
        : load >= 0.35 && load < 0.7;
      if (!band) bad++;
    }
    t.is(bad, 0, profile);
  }
});

test('education difficulty adapts: it rises after correct answers and falls after errors', (t) => {
  const records = sampleRecords('education', 'average');
  const afterCorrect: number[] = [];
  const afterWrong: number[] = [];
  for (const sequence of sequencesOf(records)) {
    for (let i = 1; i < sequence.length; i++) {
      const change = (sequence[i]!.difficulty as number) - (sequence[i - 1]!.difficulty as number);
      (sequence[i - 1]!.correct === 1 ? afterCorrect : afterWrong).push(change);
    }
  }
  const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  t.true(avg(afterCorrect) > 0.005);
  t.true(avg(afterWrong) < -0.02);
});

test('healthcare vitals are physiological and alert is raised exactly when a vital leaves its safe range', (t) => {
  for (const profile of PRESETS[2]!.supported_profiles) {
    let bad = 0;
    for (const r of sampleRecords('healthcare', profile)) {
      const hr = r.heart_rate as number;
      const sys = r.systolic_bp as number;
      const dia = r.diastolic_bp as number;
      const spo2 = r.spo2 as number;
      const temp = r.temperature_c as number;
      if (!(hr >= 30 && hr <= 220 && sys >= 50 && sys <= 250 && dia >= 25 && dia <= 150 && dia < sys)) bad++;
      if (!(spo2 >= 70 && spo2 <= 100 && temp >= 34 && temp <= 42)) bad++;
      if (![0, 1].includes(r.medication_taken as number)) bad++;
      const unsafe =
        hr < 50 || hr > 120 || sys < 90 || sys > 180 || dia < 50 || dia > 110 || spo2 < 92 || temp < 35.5 || temp > 38.5;
      if (r.alert !== (unsafe ? 1 : 0)) bad++;
    }
    t.is(bad, 0, profile);
  }
});

test('healthcare vitals shift with the clinical state', (t) => {
  const records = sampleRecords('healthcare', 'critical_care');
  const avg = (state: string, field: string) => {
    const xs = records.filter((r) => r.state === state).map((r) => r[field] as number);
    return xs.reduce((a, b) => a + b, 0) / xs.length;
  };
  t.true(avg('Critical', 'heart_rate') > avg('Stable', 'heart_rate') + 25);
  t.true(avg('Critical', 'spo2') < avg('Stable', 'spo2') - 3);
  t.true(avg('Critical', 'temperature_c') > avg('Stable', 'temperature_c') + 1);
  t.true(avg('Critical', 'systolic_bp') < avg('Stable', 'systolic_bp') - 10);
  t.true(avg('Critical', 'alert') > 0.5);
  t.true(avg('Stable', 'alert') < 0.1);
});

test('mobile_app events, sessions, revenue and crashes are consistent', (t) => {
  const events = new Set([
    'app_open', 'notification_open', 'screen_view', 'tutorial_step', 'search', 'add_to_cart', 'purchase', 'share',
    'app_close', 'crash', 'app_uninstall',
  ]);
  for (const profile of PRESETS[3]!.supported_profiles) {
    let bad = 0;
    const seen = new Set<string>();
    for (const r of sampleRecords('mobile_app', profile)) {
      const event = r.event as string;
      seen.add(event);
      if (!events.has(event)) bad++;
      if (!((r.session_duration_s as number) >= 0) || !((r.screens_viewed as number) >= 0)) bad++;
      const revenue = r.revenue as number;
      if (!(revenue >= 0) || (revenue > 0) !== (event === 'purchase')) bad++;
      if (r.crash !== (event === 'crash' ? 1 : 0)) bad++;
      if ((r.state === 'Churned') !== (event === 'app_uninstall')) bad++;
      // Sessions open at 0 s with the home screen.
      if ((event === 'app_open' || event === 'notification_open') && (r.session_duration_s !== 0 || r.screens_viewed !== 1)) bad++;
    }
    t.is(bad, 0, profile);
    t.deepEqual([...seen].sort(), [...events].sort(), `${profile} uses the whole event vocabulary`);
  }
});

test('mobile_app session time and screens only grow within a session', (t) => {
  for (const profile of PRESETS[3]!.supported_profiles) {
    let bad = 0;
    const records = sampleRecords('mobile_app', profile);
    for (let i = 1; i < records.length; i++) {
      const r = records[i]!;
      const previous = records[i - 1]!;
      const opens = r.event === 'app_open' || r.event === 'notification_open' || r.event === 'app_uninstall';
      if (!opens && r.sequence_id === previous.sequence_id) {
        if ((r.session_duration_s as number) < (previous.session_duration_s as number)) bad++;
        if ((r.screens_viewed as number) < (previous.screens_viewed as number)) bad++;
        if (previous.event === 'app_close' || previous.event === 'crash') bad++;
      }
    }
    t.is(bad, 0, profile);
  }
});
