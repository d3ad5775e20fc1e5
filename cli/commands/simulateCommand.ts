import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Command, CommanderError, Option } from 'commander';
import type { SimulationFormat, SimulationRequest } from '../../sdk/index.ts';
import type { CliContext } from '../CliContext.ts';
import { createRecordCounter } from '../countRecords.ts';
import { createProgressBar, PROGRESS_MIN_INTERACTIONS, type ProgressBar } from '../createProgressBar.ts';
import { openOutput } from '../openOutput.ts';
import { integerIn } from '../parseOptionValues.ts';
import { parseScenario } from '../parseScenario.ts';

interface SimulateOptions {
  preset?: string;
  model?: string;
  profile?: string;
  seed?: number;
  numInteractions: number;
  format: SimulationFormat;
  out?: string;
  idempotencyKey?: string;
  engineVersion?: string;
  scenario?: SimulationRequest['scenario'];
  startTime?: string;
  order?: 'sequence' | 'time';
  population?: number;
  progress: boolean;
}

const runSimulate = async (context: CliContext, options: SimulateOptions): Promise<void> => {
  if ((options.preset === undefined) === (options.model === undefined)) {
    // A malformed command line (exit 2), like anything commander itself refuses.
    context.stderr.write('error: give exactly one of --preset and --model\n');
    throw new CommanderError(2, 'bss.presetOrModel', 'give exactly one of --preset and --model');
  }
  const request: SimulationRequest = {
    ...(options.model === undefined ? { preset: options.preset } : { model: options.model }),
    num_interactions: options.numInteractions,
    ...(options.seed === undefined ? {} : { seed: options.seed }),
    ...(options.profile === undefined ? {} : { profile: options.profile }),
    ...(options.engineVersion === undefined ? {} : { engine_version: options.engineVersion }),
    ...(options.scenario === undefined ? {} : { scenario: options.scenario }),
    ...(options.startTime === undefined ? {} : { start_time: options.startTime }),
    ...(options.order === undefined ? {} : { order: options.order }),
    ...(options.population === undefined ? {} : { population: options.population }),
  };
  const stream = await context.client().streamSimulation(request, options.format, {
    ...(options.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey }),
    signal: context.signal,
  });
  const output = options.out === undefined ? undefined : openOutput(options.out);
  // The bar is for a person watching a long run: never in a pipe or a log, never over records on screen.
  const showProgress =
    options.progress &&
    context.stderr.isTTY === true &&
    (output !== undefined || context.stdout.isTTY !== true) &&
    options.numInteractions >= PROGRESS_MIN_INTERACTIONS;
  const progress: ProgressBar | undefined = showProgress ? createProgressBar(context.stderr, options.numInteractions) : undefined;
  const countRecords = createRecordCounter(options.format);
  let bytes = 0;
  try {
    await pipeline(
      stream.bytes,
      async function* (chunks: AsyncIterable<Uint8Array>) {
        for await (const chunk of chunks) {
          bytes += chunk.byteLength;
          progress?.advance(countRecords(chunk), chunk.byteLength);
          yield chunk;
        }
      },
      (output?.stream ?? context.stdout) as Writable,
      // stdout stays open for the summary and for the process.
      { end: output !== undefined, signal: context.signal },
    );
    await output?.commit();
  } catch (error) {
    progress?.stop();
    await output?.discard();
    throw error;
  }
  progress?.complete();
  if (context.stderr.isTTY === true) {
    const { id, seed } = stream.simulation;
    context.stderr.write(
      `${options.numInteractions} records, ${bytes} bytes${options.out === undefined ? '' : ` written to ${options.out}`}` +
        `${id === undefined ? '' : `; simulation ${id}`}${seed === undefined ? '' : `, seed ${seed}`}\n`,
    );
  }
};

export const simulateCommand = (context: CliContext): Command =>
  new Command('simulate')
    .description("run a simulation; its records go to FILE or stdout, byte for byte the API's body in that format")
    .option('--preset <preset>', 'preset name (see presets), or the alias mobile')
    .option('--model <name>', 'one of your models instead of a preset (see models list): NAME or NAME@VERSION')
    .option('--profile <profile>', "one of the preset's or model's profiles (its default profile otherwise)")
    .option('--seed <seed>', 'a seed, 0-4294967295, for a reproducible run (drawn by the service otherwise)', integerIn(0, 4_294_967_295))
    .requiredOption('-n, --num-interactions <n>', 'number of interactions (records) to generate', integerIn(1, Number.MAX_SAFE_INTEGER))
    .addOption(new Option('--format <format>', 'output format (parquet: an Apache Parquet file, best with --out)').choices(['json', 'ndjson', 'csv', 'parquet']).default('json'))
    .option('--out <file>', 'write the records to FILE (whole or not at all) instead of stdout')
    .option('--idempotency-key <key>', 'Idempotency-Key to send (a fresh one otherwise); repeating it replays the first run')
    .option('--engine-version <version>', 'engine major ("1", "2") or exact service_version (the newest otherwise)')
    .option('--scenario <json|@file>', 'an engine-3 scenario, as JSON or @FILE holding it: {"events": [{"type", "sequence", "at_step", "duration", "intensity"}]}', parseScenario)
    .option('--start-time <instant>', 'engine 4: ISO 8601 UTC instant no record is earlier than (2026-01-01T00:00:00.000Z otherwise)')
    .addOption(new Option('--order <order>', 'engine 4: sequence (a sequence after another) or time (a population merged in event_time order)').choices(['sequence', 'time']))
    .option('--population <n>', 'engine 4: subjects live at once, 1-10000 (100 otherwise)', integerIn(1, 10_000))
    .option('--no-progress', 'never show the progress bar')
    .addHelpText(
      'after',
      `\nA progress bar (records, bytes, rate, ETA) is drawn on stderr for runs of ${PROGRESS_MIN_INTERACTIONS} interactions or more, only when stderr is a terminal.` +
        `\nExample: --scenario '{"events":[{"type":"market_crash","sequence":1,"at_step":20,"duration":10}]}' (see each preset's scenario_events).`,
    )
    .action((options: SimulateOptions) => runSimulate(context, options));
