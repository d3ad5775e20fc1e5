import { resolveEngineVersion } from '../../shared/engine/index.ts';
import { randomEventsRoom, SCENARIO_ENGINE_MAJOR } from '../../shared/engine/scenario.ts';
import type { AppError } from '../../shared/errors/AppError.ts';
import { modelNotFound, validationFailed, type ValidationIssue } from '../../shared/errors/errors.ts';
import { canonicalScenario, resolveRunTiming } from './resolveRunTiming.ts';
import type { RunDependencies } from './RunDependencies.ts';
import type { ModelRunRequest } from './ModelRunRequest.ts';
import type { RunRequest } from './RunRequest.ts';

/**
 * A request that names a model, resolved against the caller's live models (404 `model_not_found` for an
 * unknown, deleted or another account's name or version) and checked against the version's catalog the
 * way a preset's request is checked against the preset's: profile, engine (models run on engine 3 and
 * later: 1 or 2 is a 422), scenario event types.
 */
export const resolveModelRequest = async (deps: Pick<RunDependencies, 'models'>, accountId: string, request: ModelRunRequest): Promise<RunRequest | AppError> => {
  const stored = await deps.models.resolve(accountId, request.name, request.version);
  if (stored === null) {
    return modelNotFound();
  }
  const { catalog, spec } = stored;
  const issues: ValidationIssue[] = [];
  if (request.profile !== undefined && !catalog.supported_profiles.includes(request.profile)) {
    issues.push({ path: 'profile', message: `Unknown profile for ${spec.name}; one of: ${catalog.supported_profiles.join(', ')}.` });
  }
  const serviceVersion = resolveEngineVersion(request.engine);
  if (serviceVersion === undefined || !catalog.engine_versions.includes(serviceVersion)) {
    issues.push({
      path: 'engine_version',
      message: `Models run on engine ${SCENARIO_ENGINE_MAJOR}.0.0 and later; a major or one of: ${catalog.engine_versions.join(', ')}.`,
    });
    return validationFailed(issues);
  }
  const types = catalog.scenario_events.map((event) => event.type);
  const unknownType = (path: string): void => {
    issues.push({
      path,
      message: types.length === 0 ? `The model ${spec.name} has no scenario events.` : `Unknown scenario event type for ${spec.name}; one of: ${types.join(', ')}.`,
    });
  };
  request.scenario?.events?.forEach((event, index) => {
    if (!types.includes(event.type)) unknownType(`scenario.events.${index}.type`);
  });
  const random = request.scenario?.random;
  if (random !== undefined) {
    random.types.forEach((type, index) => {
      if (!types.includes(type)) unknownType(`scenario.random.types.${index}`);
    });
    // Random events are spread over the model's sequences: the most one can get must fit in max_steps.
    const room = randomEventsRoom(random, stored.compiled.engine.episodeLength);
    if (room !== undefined) issues.push({ path: 'scenario.random', message: room });
  }
  const { timing, issues: timingIssues } = resolveRunTiming(
    { start_time: request.startTime, order: request.order, population: request.population },
    request.scenario,
    serviceVersion,
  );
  for (const issue of timingIssues) issues.push({ path: issue.path.join('.'), message: issue.message });
  if (issues.length > 0) {
    return validationFailed(issues);
  }
  return {
    preset: spec.name,
    model: spec,
    profile: request.profile ?? catalog.default_profile,
    seed: request.seed,
    numInteractions: request.numInteractions,
    serviceVersion,
    // at_time echoed canonical (milliseconds), as records print instants.
    scenario: canonicalScenario(request.scenario),
    ...(timing === undefined ? {} : { timing }),
  };
};
