import type { AppError } from '../../shared/errors/AppError.ts';
import { engineVersionRetired, presetUnavailable, simulationNotCompleted, simulationNotFound } from '../../shared/errors/errors.ts';
import { resolvePreset } from '../../shared/engine/index.ts';
import type { RunSpecification } from '../../shared/runs/runSpecification.ts';
import { findRun } from './findRun.ts';
import { isEngineVersionServed } from './isEngineVersionServed.ts';
import { isPresetAvailable } from './isPresetAvailable.ts';
import { recordOfRow } from './recordOfRow.ts';
import type { RunDependencies } from './RunDependencies.ts';

/** A recorded run to make again: what it was made from, and what the ledger measured of it. */
export interface Replay {
  readonly spec: RunSpecification;
  /** The ledger's compute_ms, which a replayed JSON body states again. */
  readonly computeMs: number | null;
}

/**
 * One of the account's runs as a replay makes it again (its recorded inputs, under its recorded engine and,
 * for a model run, its recorded version even if deleted since: docs/models.md), or why it cannot be: 404
 * for an unknown, malformed or another account's id, 409 for a run not completed, 410 for a retired
 * engine, 409 for a preset out of service.
 */
export const findReplay = async (deps: RunDependencies, input: { readonly accountId: string; readonly simulationId: string }): Promise<Replay | AppError> => {
  const row = await findRun(deps, { accountId: input.accountId, id: input.simulationId });
  if (row === null) {
    return simulationNotFound();
  }
  if (row.status !== 'completed') {
    return simulationNotCompleted(row.status);
  }
  if (!isEngineVersionServed(row.service_version)) {
    return engineVersionRetired(row.service_version);
  }
  const { model, ...record } = recordOfRow(row);
  if (model !== undefined) {
    const stored = await deps.models.recorded(input.accountId, model.name, model.version);
    return stored === null || stored.spec.digest !== model.digest ? simulationNotFound() : { spec: { ...record, model: stored.spec }, computeMs: row.compute_ms };
  }
  const preset = resolvePreset(row.preset);
  if (preset === undefined || !isPresetAvailable(deps.config, preset)) {
    return presetUnavailable(row.preset);
  }
  return { spec: record, computeMs: row.compute_ms };
};
