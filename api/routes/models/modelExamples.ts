// Example values of the Models resources for the OpenAPI document and the /docs page (its examples are
// built from the document): a small but real model, so every example is one the service accepts.

const DIGEST = 'sha256:5d41402abc4b2a76b9719d911017c592ae9e5b8e3a1f0e7f5c8c4a7b2d1e9f30';
const CREATED_AT = '2026-11-23T10:15:30.123Z';

const EXAMPLE_DEFINITION = {
  description: 'A member who is active, lapses and comes back, or leaves for good.',
  states: ['Active', 'Lapsed', 'Gone'],
  initial: 'Active',
  terminal: ['Gone'],
  max_steps: 40,
  profiles: { steady: { lapse: 0.1, back: 0.5, leave: 0.02 } },
  transitions: { Active: { Lapsed: 'lapse', Gone: 'leave' }, Lapsed: { Active: 'back', Gone: 'leave * 2' } },
  fields: [{ name: 'visits', type: 'integer', value: "state == 'Active' ? poisson(3) : 0", description: 'Visits this step.' }],
  events: [{ type: 'outage', description: 'The service is down.', effect: 'Members lapse far more often.', set: { lapse: 'min(1, lapse + 0.6 * intensity)' } }],
};

const EXAMPLE_MODEL = {
  name: 'members',
  version: 1,
  digest: DIGEST,
  created_at: CREATED_AT,
  definition: EXAMPLE_DEFINITION,
  warnings: [],
  catalog: {
    description: EXAMPLE_DEFINITION.description,
    default_profile: 'steady',
    supported_profiles: ['steady'],
    supported_states: ['Active', 'Lapsed', 'Gone'],
    record_fields: [
      { name: 'sequence_id', type: 'integer', description: 'The sequence (one subject) the record belongs to.', nullable: false },
      { name: 'interaction_id', type: 'integer', description: 'The record\'s position in the run.', nullable: false },
      { name: 'state', type: 'string', description: 'The state of the record.', nullable: false },
      { name: 'visits', type: 'integer', description: 'Visits this step.', nullable: true },
      { name: 'scenario_event', type: 'string', description: 'The scenario event active at this record, or null.', nullable: true },
    ],
    state_transitions: { Active: ['Active', 'Lapsed', 'Gone'], Lapsed: ['Active', 'Lapsed', 'Gone'], Gone: [] },
    scenario_events: [{ type: 'outage', description: 'The service is down.', effect: 'Members lapse far more often.' }],
    engine_versions: ['3.0.0'],
  },
};

const EXAMPLE_MODEL_LIST = [{ name: 'members', version: 1, digest: DIGEST, created_at: CREATED_AT, description: EXAMPLE_DEFINITION.description }];

const EXAMPLE_VALIDATION = {
  valid: true,
  issues: [],
  warnings: [],
  sample: {
    records: [{ sequence_id: 1, interaction_id: 1, state: 'Active', visits: 3, scenario_event: null }],
    summary: {
      records: 10_000,
      states: { Active: 0.78, Lapsed: 0.16, Gone: 0.06 },
      fields: { visits: { mean: 2.34, min: 0, max: 11, nulls: 0 } },
    },
  },
};

/** The examples by resource: a definition, a Model, the list, a validation. */
export const modelExamples = {
  definition: EXAMPLE_DEFINITION,
  model: EXAMPLE_MODEL,
  list: EXAMPLE_MODEL_LIST,
  validation: EXAMPLE_VALIDATION,
};
