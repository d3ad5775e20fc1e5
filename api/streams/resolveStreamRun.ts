import { EVENT_TIME_ENGINE_MAJOR, type RunTimingSpec } from '../../shared/engine/RunTimingSpec.ts';
import { AppError } from '../../shared/errors/AppError.ts';
import { validationFailed } from '../../shared/errors/errors.ts';
import type { ModelRunRequest } from '../runs/ModelRunRequest.ts';
import { resolveModelRequest } from '../runs/resolveModelRequest.ts';
import type { RunRequest } from '../runs/RunRequest.ts';
import type { StreamDependencies } from './StreamDependencies.ts';

/**
 * The run a stream delivers, its names resolved: a preset's as validation resolved it, a model's against
 * the account's live models (404 `model_not_found` for an unknown, deleted or another account's name or
 * version; profile, engine and scenario checked against the version's catalog, as for a simulation), and
 * engine 4's timing, which a stream needs: its records carry event_time (docs/streams.md).
 */
export const resolveStreamRun = async (
  services: StreamDependencies,
  accountId: string,
  run: RunRequest | ModelRunRequest,
): Promise<{ readonly run: RunRequest; readonly timing: RunTimingSpec }> => {
  const resolved = 'kind' in run ? await resolveModelRequest(services, accountId, run) : run;
  if (resolved instanceof AppError) throw resolved;
  if (resolved.timing === undefined) {
    // Validation refused an engine before 4 by its number; a model's catalog only narrows the engines.
    throw validationFailed([{ path: 'engine_version', message: `A stream needs engine ${EVENT_TIME_ENGINE_MAJOR} or later.` }]);
  }
  return { run: resolved, timing: resolved.timing };
};
