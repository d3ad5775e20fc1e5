import { Command, CommanderError, InvalidArgumentError } from 'commander';
import type { CliContext } from '../CliContext.ts';
import { integerIn } from '../parseOptionValues.ts';
import { parseScenario } from '../parseScenario.ts';

interface StreamOptions {
  readonly preset?: string;
  readonly model?: string;
  readonly numInteractions: number;
  readonly profile?: string;
  readonly seed?: number;
  readonly population?: number;
  readonly startTime?: string;
  readonly speed?: number;
  readonly lateShare?: number;
  readonly maxDelay?: number;
  readonly duplicateShare?: number;
  readonly scenario?: unknown;
  readonly webhook?: string;
  readonly resume?: string;
  readonly lastEventId?: number;
}

const numberIn =
  (minimum: number, maximum: number) =>
  (value: string): number => {
    const parsed = Number(value);
    if (value.trim() === '' || !Number.isFinite(parsed) || parsed < minimum || parsed > maximum) {
      throw new InvalidArgumentError(`expected a number from ${minimum} to ${maximum}.`);
    }
    return parsed;
  };

/**
 * `bss stream`: starts a live stream (docs/streams.md) and prints its envelopes as NDJSON as they come
 * due (the SDK's iterator resumes a broken connection); with --webhook it prints the Stream and its
 * secret instead. `--resume ID` reads an existing stream again, after --last-event-id.
 */
export const streamCommand = (context: CliContext): Command =>
  new Command('stream')
    .description('start a live stream and print its events as NDJSON as they come due (docs/streams.md)')
    .option('--preset <preset>', 'preset name (see presets), or the alias mobile')
    .option('--model <name>', 'one of your models instead of a preset (see models list): NAME or NAME@VERSION')
    .option('-n, --num-interactions <n>', 'records the stream delivers', integerIn(1, Number.MAX_SAFE_INTEGER), 1000)
    .option('--profile <profile>', "one of the preset's or model's profiles (its default profile otherwise)")
    .option('--seed <seed>', 'a seed, 0-4294967295 (drawn by the service otherwise)', integerIn(0, 4_294_967_295))
    .option('--population <n>', 'subjects live at once, 1-10000 (100 otherwise)', integerIn(1, 10_000))
    .option('--start-time <instant>', 'ISO 8601 UTC instant of the first event time (now otherwise)')
    .option('--speed <x>', 'event-time seconds per second of wall clock, 0.01-100000 (1 otherwise)', numberIn(0.01, 100_000))
    .option('--late-share <share>', 'share of records delivered late, 0-0.5', numberIn(0, 0.5))
    .option('--max-delay <seconds>', 'largest delay of a late record, 1-86400 s', numberIn(1, 86_400))
    .option('--duplicate-share <share>', 'share of records delivered twice, 0-0.2', numberIn(0, 0.2))
    .option('--scenario <json|@file>', 'a scenario, as JSON or @FILE holding it', parseScenario)
    .option('--webhook <url>', 'deliver to this webhook instead of printing; prints the Stream and its secret (shown once)')
    .option('--resume <stream_id>', 'read an existing stream instead of starting one')
    .option('--last-event-id <n>', 'with --resume: print the events after this position', integerIn(0, Number.MAX_SAFE_INTEGER))
    .action(async (options: StreamOptions) => {
      const client = context.client();
      let streamId = options.resume;
      if (streamId === undefined) {
        if ((options.preset === undefined) === (options.model === undefined)) {
          // A malformed command line (exit 2), as `bss simulate` answers it.
          context.stderr.write('error: give exactly one of --preset and --model\n');
          throw new CommanderError(2, 'bss.presetOrModel', 'give exactly one of --preset and --model');
        }
        const disorder =
          options.lateShare === undefined && options.maxDelay === undefined && options.duplicateShare === undefined
            ? {}
            : {
                disorder: {
                  ...(options.lateShare === undefined ? {} : { late_share: options.lateShare }),
                  ...(options.maxDelay === undefined ? {} : { max_delay_s: options.maxDelay }),
                  ...(options.duplicateShare === undefined ? {} : { duplicate_share: options.duplicateShare }),
                },
              };
        const created = await client.streams.create({
          ...(options.model === undefined ? { preset: options.preset } : { model: options.model }),
          num_interactions: options.numInteractions,
          ...(options.profile === undefined ? {} : { profile: options.profile }),
          ...(options.seed === undefined ? {} : { seed: options.seed }),
          ...(options.population === undefined ? {} : { population: options.population }),
          ...(options.startTime === undefined ? {} : { start_time: options.startTime }),
          ...(options.speed === undefined ? {} : { speed: options.speed }),
          ...(options.scenario === undefined ? {} : { scenario: options.scenario as never }),
          ...disorder,
          ...(options.webhook === undefined ? {} : { sink: { type: 'webhook' as const, url: options.webhook } }),
        });
        if (options.webhook !== undefined) {
          context.stdout.write(`${JSON.stringify(created, null, 2)}\n`);
          return;
        }
        context.stderr.write(`stream ${created.id} (resume with: bss stream --resume ${created.id} --last-event-id N)\n`);
        streamId = created.id;
      }
      for await (const envelope of client.streams.events(streamId, { signal: context.signal, ...(options.lastEventId === undefined ? {} : { lastEventId: options.lastEventId }) })) {
        if (!context.stdout.write(`${JSON.stringify(envelope)}\n`)) await new Promise((resolve) => context.stdout.once('drain', resolve));
      }
    });
