// What to draw for each preset: small multiples, one panel per quantity with its own unit and scale (never
// two units on two axes of one panel), stacked on one shared interaction axis. Fields of one unit that are
// read together share a panel (systolic and diastolic pressure; difficulty and cognitive load, both 0–1).
// A 0/1 flag is marked as points on the first panel's line.

const SPECS = {
  finance: {
    panels: [
      { fields: ['portfolio_value'], title: 'Portfolio value' },
      { fields: ['daily_return'], title: 'Daily return (%)', format: 'percent' },
    ],
    marker: { field: 'risk_alert', on: 'portfolio_value', label: 'Risk alert', nouns: ['risk alert', 'risk alerts'] },
  },
  education: {
    panels: [
      { fields: ['response_time_ms'], title: 'Response time (ms)' },
      { fields: ['difficulty', 'cognitive_load'], title: 'Difficulty and cognitive load (0–1)' },
    ],
    marker: null,
  },
  healthcare: {
    panels: [
      { fields: ['heart_rate'], title: 'Heart rate (bpm)' },
      { fields: ['systolic_bp', 'diastolic_bp'], title: 'Blood pressure (mmHg)' },
      { fields: ['spo2'], title: 'SpO₂ (%)' },
      { fields: ['temperature_c'], title: 'Temperature (°C)' },
    ],
    marker: { field: 'alert', on: 'heart_rate', label: 'Alert', nouns: ['alert', 'alerts'] },
  },
  mobile_app: {
    panels: [
      { fields: ['session_duration_s'], title: 'Session duration (s)' },
      { fields: ['revenue'], title: 'Revenue' },
    ],
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
  systolic_bp: 'Systolic',
  diastolic_bp: 'Diastolic',
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

const IDS = new Set(['sequence_id', 'interaction_id']);

const isFlag = (records, field) => records.every((record) => record[field] === 0 || record[field] === 1);

/**
 * The panels for a preset, keeping only fields the catalog's record_fields lists (a field an engine drops
 * drops out of its panel, an emptied panel goes); a preset this page does not know gets a panel per
 * continuous numeric field (at most four), and its first flag as markers. Fields that are not numbers
 * (state, an engine-3 scenario_event) are never charted as lines.
 * Returns { panels: [{ fields, title, format }], marker } or null when nothing can be drawn; `format` is
 * 'percent' for a fraction read as a percentage (a daily return of 0.0123 is 1.23 %).
 */
export const chartSpecFor = (preset, records) => {
  const numeric = (preset?.record_fields ?? [])
    .filter((field) => (field.type === 'integer' || field.type === 'number') && !IDS.has(field.name))
    .map((field) => field.name);
  const known = new Set(numeric);
  const spec = Object.hasOwn(SPECS, preset?.name) ? SPECS[preset.name] : null;
  if (spec !== null) {
    const panels = spec.panels
      .map((panel) => {
        const fields = panel.fields.filter((field) => known.has(field));
        // A title written for the full set of fields would name a missing one.
        return {
          fields,
          title: fields.length === panel.fields.length ? panel.title : fields.map(fieldLabel).join(', '),
          format: panel.format ?? 'number',
        };
      })
      .filter((panel) => panel.fields.length > 0);
    if (panels.length > 0) {
      const marker = spec.marker !== null && known.has(spec.marker.field) && panels[0].fields.includes(spec.marker.on) ? spec.marker : null;
      return { panels, marker };
    }
  }
  const continuous = numeric.filter((field) => !isFlag(records, field));
  const flags = numeric.filter((field) => isFlag(records, field));
  if (continuous.length === 0) {
    return null;
  }
  return {
    panels: continuous.slice(0, 4).map((field) => ({ fields: [field], title: fieldLabel(field), format: 'number' })),
    marker:
      flags[0] === undefined
        ? null
        : { field: flags[0], on: continuous[0], label: fieldLabel(flags[0]), nouns: [`record with ${flags[0]} = 1`, `records with ${flags[0]} = 1`] },
  };
};
