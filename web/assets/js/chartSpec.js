// What to draw for each preset: its main numeric fields as lines (on a left and an optional right axis,
// so fields of different units keep their own scale), and at most one 0/1 flag marked as points on a line.

const SPECS = {
  finance: {
    left: ['portfolio_value'],
    right: [],
    axes: ['Portfolio value', ''],
    marker: { field: 'risk_alert', on: 'portfolio_value', label: 'Risk alert', nouns: ['risk alert', 'risk alerts'] },
  },
  education: {
    left: ['response_time_ms'],
    right: ['difficulty', 'cognitive_load'],
    axes: ['Response time (ms)', 'Difficulty, load (0–1)'],
    marker: null,
  },
  healthcare: {
    left: ['heart_rate', 'systolic_bp', 'diastolic_bp'],
    right: ['spo2'],
    axes: ['bpm, mmHg', 'SpO₂ (%)'],
    marker: { field: 'alert', on: 'heart_rate', label: 'Alert', nouns: ['alert', 'alerts'] },
  },
  mobile_app: {
    left: ['session_duration_s'],
    right: ['revenue'],
    axes: ['Session (s)', 'Revenue'],
    marker: { field: 'crash', on: 'session_duration_s', label: 'Crash', nouns: ['crash', 'crashes'] },
  },
};

const LABELS = {
  portfolio_value: 'Portfolio value',
  daily_return: 'Daily return',
  response_time_ms: 'Response time (ms)',
  difficulty: 'Difficulty',
  cognitive_load: 'Cognitive load',
  heart_rate: 'Heart rate (bpm)',
  systolic_bp: 'Systolic BP (mmHg)',
  diastolic_bp: 'Diastolic BP (mmHg)',
  spo2: 'SpO₂ (%)',
  temperature_c: 'Temperature (°C)',
  session_duration_s: 'Session (s)',
  screens_viewed: 'Screens viewed',
  revenue: 'Revenue',
};

export const fieldLabel = (name) => {
  if (Object.hasOwn(LABELS, name)) {
    return LABELS[name];
  }
  const words = name.replaceAll('_', ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
};

const axisTitles = (left, right) => [left.map(fieldLabel).join(', '), right.map(fieldLabel).join(', ')];

const IDS = new Set(['sequence_id', 'interaction_id']);

const isFlag = (records, field) => records.every((record) => record[field] === 0 || record[field] === 1);

/**
 * The spec for a preset, keeping only fields the catalog's record_fields lists; a preset this page does
 * not know gets its first continuous numeric field, and its first flag as markers.
 */
export const chartSpecFor = (preset, records) => {
  const numeric = (preset?.record_fields ?? [])
    .filter((field) => (field.type === 'integer' || field.type === 'number') && !IDS.has(field.name))
    .map((field) => field.name);
  const known = new Set(numeric);
  const spec = Object.hasOwn(SPECS, preset?.name) ? SPECS[preset.name] : null;
  if (spec !== null) {
    const left = spec.left.filter((field) => known.has(field));
    if (left.length > 0) {
      const marker = spec.marker !== null && known.has(spec.marker.field) && left.includes(spec.marker.on) ? spec.marker : null;
      const right = spec.right.filter((field) => known.has(field));
      // The short axis titles fit only the full set of fields they were written for.
      const complete = left.length === spec.left.length && right.length === spec.right.length;
      return { left, right, marker, axes: complete ? spec.axes : axisTitles(left, right) };
    }
  }
  const continuous = numeric.filter((field) => !isFlag(records, field));
  const flags = numeric.filter((field) => isFlag(records, field));
  const first = continuous[0];
  if (first === undefined) {
    return null;
  }
  const right = continuous.slice(1, 2);
  return {
    left: [first],
    right,
    axes: axisTitles([first], right),
    marker:
      flags[0] === undefined
        ? null
        : { field: flags[0], on: first, label: fieldLabel(flags[0]), nouns: [`record with ${flags[0]} = 1`, `records with ${flags[0]} = 1`] },
  };
};
