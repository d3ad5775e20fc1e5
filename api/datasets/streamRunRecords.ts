import type { RunTimingSpec } from '../../shared/engine/RunTimingSpec.ts';
import { randomUUID } from 'node:crypto';
import { StringDecoder } from 'node:string_decoder';
import type { ModelSpecification } from '../../shared/jobs/RunSpecification.ts';
import type { CompiledModel } from '../../shared/models/index.ts';
import type { Scenario } from '../../shared/engine/scenario.ts';
import { ClientAbortedError, internalError, simulationTimeout } from '../../shared/errors/errors.ts';
import type { Services } from '../Services.ts';

/** A record as NDJSON carries it. */
export type DatasetRecord = Readonly<Record<string, string | number | null>>;

export interface RecordRun {
  readonly simulationId: string;
  /** The canonical preset, or the model's name for a model run. */
  readonly preset: string;
  /** A model run's recorded version (the job carries it) and its compiled form (the archive's labels). */
  readonly model?: ModelSpecification;
  readonly compiled?: CompiledModel;
  readonly profile: string;
  readonly seed: number;
  readonly numInteractions: number;
  readonly serviceVersion: string;
  readonly scenario: Scenario | undefined;
  /** Engine 4's recorded start_time, order and population; absent before engine 4. */
  readonly timing?: RunTimingSpec | undefined;
}

/**
 * Runs a recorded run's inputs again through the queue and pool, as NDJSON, and hands its records one by
 * one to `onRecord` as the chunks arrive (a line cut by a chunk waits for the rest): the run is never
 * held whole. `ready` is awaited after each chunk, so the consumer's pace reaches the worker.
 */
export const streamRunRecords = async (
  services: Services,
  run: RecordRun,
  onRecord: (record: DatasetRecord) => void,
  ready: () => Promise<void>,
  signal: AbortSignal,
): Promise<void> => {
  // A character cut between two chunks is decoded once both are in.
  const decoder = new StringDecoder('utf8');
  let rest = '';
  const take = (text: string): void => {
    const lines = (rest + text).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) if (line !== '') onRecord(JSON.parse(line) as DatasetRecord);
  };
  services.simulations.assertAvailable();
  const outcome = await services.simulations.run(
    {
      simulationId: run.simulationId,
      preset: run.preset,
      ...(run.model === undefined ? {} : { model: run.model }),
      profile: run.profile,
      seed: run.seed,
      numInteractions: run.numInteractions,
      serviceVersion: run.serviceVersion,
      scenario: run.scenario,
      ...(run.timing === undefined ? {} : { timing: run.timing }),
      runId: randomUUID(),
      deadline: Date.now() + services.config.simulationTimeoutMs,
      format: 'ndjson',
    },
    {
      signal,
      write: async (chunk) => {
        take(decoder.write(chunk));
        await ready();
      },
    },
  );
  switch (outcome.status) {
    case 'completed':
      take(decoder.write(outcome.body) + decoder.end());
      if (rest !== '') take('\n');
      return;
    case 'timed_out':
      throw simulationTimeout(services.config.simulationTimeoutMs);
    case 'cancelled':
      throw new ClientAbortedError();
    case 'failed':
      throw internalError();
  }
};
