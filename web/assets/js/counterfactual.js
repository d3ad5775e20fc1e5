// The counterfactual of a scenario run: the same inputs (preset, profile, seed, size, engine) without the
// scenario. Engine 3 draws its randomness by subject and step, so the two runs differ only where an event
// acts (docs/scenarios.md#the-counterfactual-guarantee), and the pair reads as a controlled experiment.

/** The run's scenario as the result (or a history Run) echoes it, or null. */
export const scenarioOf = (run) => (Array.isArray(run?.scenario?.events) && run.scenario.events.length > 0 ? run.scenario : null);

/** The request that makes the result's records again: its inputs, its exact engine and its scenario. */
export const runRequest = (result) => ({
  // A model's run names its exact version (docs/models.md "Running a model"), so the same records come again.
  ...(result.model ? { model: `${result.model.name}@${result.model.version}` } : { preset: result.preset }),
  profile: result.profile,
  seed: result.seed,
  num_interactions: result.num_interactions,
  ...(result.metadata?.service_version === undefined ? {} : { engine_version: result.metadata.service_version }),
  // Engine 4's clock: the same start, order and population give the same subjects at the same instants.
  ...(typeof result.start_time === 'string' ? { start_time: result.start_time } : {}),
  ...(typeof result.order === 'string' ? { order: result.order } : {}),
  ...(typeof result.population === 'number' ? { population: result.population } : {}),
  ...(scenarioOf(result) === null ? {} : { scenario: result.scenario }),
});

/** The request for a result's counterfactual: the same run, and no scenario. */
export const counterfactualRequest = (result) => {
  const { scenario, ...request } = runRequest(result);
  return request;
};

/**
 * Each record's place as "sequence:step" (1-based within its sequence), counted per sequence: in a run of
 * order "time" the subjects' records interleave.
 */
const placesOf = (records) => {
  const steps = new Map();
  return records.map((record) => {
    const step = (steps.get(record.sequence_id) ?? 0) + 1;
    steps.set(record.sequence_id, step);
    return `${record.sequence_id}:${step}`;
  });
};

/**
 * The counterfactual's record at each record's place (same sequence, same step), or null where it has
 * none. By place, not by interaction_id: an event that ends a subject early (a churn wave) shifts the ids
 * of every later record, and a subject must be compared with itself.
 */
export const alignCounterfactual = (records, counterfactual) => {
  const byPlace = new Map();
  placesOf(counterfactual).forEach((place, index) => byPlace.set(place, counterfactual[index]));
  return placesOf(records).map((place) => byPlace.get(place) ?? null);
};
