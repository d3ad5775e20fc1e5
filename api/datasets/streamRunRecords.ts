import { randomUUID } from 'node:crypto';
import { StringDecoder } from 'node:string_decoder';
import type { RunSpecification } from '../../shared/runs/runSpecification.ts';
import type { CompiledModel } from '../../shared/models/index.ts';
import { ClientAbortedError, internalError, simulationTimeout } from '../../shared/errors/errors.ts';
import type { Services } from '../Services.ts';

/** A record as NDJSON carries it. */
export type DatasetRecord = Readonly<Record<string, string | number | null>>;

/** A recorded run to make again: its specification, and a model run's compiled version (the archive's labels). */
export type RecordRun = RunSpecification & { readonly compiled?: CompiledModel };

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
  // The compiled model is the API's own (the archive's labels); the worker compiles the definition itself.
  const { compiled: _compiled, ...spec } = run;
  const outcome = await services.simulations.run(
    {
      ...spec,
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
