import { randomUUID } from 'node:crypto';
import { StringDecoder } from 'node:string_decoder';
import type { ScenarioOutcome } from '../../shared/engine/scenario.ts';
import type { RunSpecification } from '../../shared/runs/runSpecification.ts';
import { ClientAbortedError, internalError, simulationTimeout } from '../../shared/errors/errors.ts';
import { OUTCOME_LINE_TAG } from '../../shared/jobs/simulationJob.ts';
import type { Services } from '../Services.ts';

/** A record as NDJSON carries it. */
export type DatasetRecord = Readonly<Record<string, string | number | null>>;

/** A recorded run to make again: its specification (a model run's naming its recorded version's definition). */
export type RecordRun = RunSpecification;

/** What the engine made of a run's scenario, as its outcome line carries it: null for a run without one. */
export type RunOutcome = ScenarioOutcome | null;

/**
 * Runs a recorded run's inputs again through the queue and pool, as NDJSON, and hands its records one by
 * one to `onRecord` as the chunks arrive (a line cut by a chunk waits for the rest): the run is never
 * held whole. `ready` is awaited after each chunk, so the consumer's pace reaches the worker. The run is
 * asked to end with its outcome line (shared/jobs/simulationJob.ts), what the engine placed, which this
 * resolves with: the engine runs on the workers only, never here.
 */
export const streamRunRecords = async (
  services: Services,
  run: RecordRun,
  onRecord: (record: DatasetRecord) => void,
  ready: () => Promise<void>,
  signal: AbortSignal,
): Promise<RunOutcome> => {
  // A character cut between two chunks is decoded once both are in.
  const decoder = new StringDecoder('utf8');
  let rest = '';
  let outcome: RunOutcome | undefined;
  const take = (text: string): void => {
    const lines = (rest + text).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      if (line === '') continue;
      // Nothing follows the outcome line; a line after it is no body this code asked for.
      if (outcome !== undefined) throw internalError();
      const parsed = JSON.parse(line) as DatasetRecord | [string, RunOutcome];
      if (Array.isArray(parsed)) {
        if (parsed[0] !== OUTCOME_LINE_TAG) throw internalError();
        outcome = parsed[1];
      } else {
        onRecord(parsed);
      }
    }
  };
  services.simulations.assertAvailable();
  const answer = await services.simulations.run(
    {
      ...run,
      runId: randomUUID(),
      deadline: Date.now() + services.config.simulationTimeoutMs,
      format: 'ndjson',
      outcomeLine: true,
    },
    {
      signal,
      write: async (chunk) => {
        take(decoder.write(chunk));
        await ready();
      },
    },
  );
  switch (answer.status) {
    case 'completed':
      take(decoder.write(answer.body) + decoder.end());
      if (rest !== '') take('\n');
      // A worker of a deployment before outcome lines prints none: no archive with a manifest it cannot vouch for.
      if (outcome === undefined) throw internalError();
      return outcome;
    case 'timed_out':
      throw simulationTimeout(services.config.simulationTimeoutMs);
    case 'cancelled':
      throw new ClientAbortedError();
    case 'failed':
      throw internalError();
  }
};
