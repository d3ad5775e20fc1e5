import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Command, Option } from 'commander';
import type { CliContext } from '../CliContext.ts';
import { openOutput } from '../openOutput.ts';

interface DatasetOptions {
  layout: 'timeeval' | 'nab';
  field?: string;
  out?: string;
}

const runDataset = async (context: CliContext, simulationId: string, options: DatasetOptions): Promise<void> => {
  const dataset = await context.client().dataset(
    simulationId,
    { layout: options.layout, ...(options.field === undefined ? {} : { field: options.field }) },
    { signal: context.signal },
  );
  const output = options.out === undefined ? undefined : openOutput(options.out);
  let bytes = 0;
  try {
    await pipeline(
      dataset.bytes,
      async function* (chunks: AsyncIterable<Uint8Array>) {
        for await (const chunk of chunks) {
          bytes += chunk.byteLength;
          yield chunk;
        }
      },
      (output?.stream ?? context.stdout) as Writable,
      { end: output !== undefined, signal: context.signal },
    );
    await output?.commit();
  } catch (error) {
    await output?.discard();
    throw error;
  }
  if (context.stderr.isTTY === true) {
    context.stderr.write(`${bytes} bytes${options.out === undefined ? '' : ` written to ${options.out}`}\n`);
  }
};

/** `bss dataset ID --layout timeeval --out set.zip`: a scenario run as a labelled benchmark archive (docs/datasets.md). */
export const datasetCommand = (context: CliContext): Command =>
  new Command('dataset')
    .description('a completed scenario run as a zip archive that detection benchmarks load (TimeEval or NAB layout)')
    .argument('<simulation_id>', 'the simulation id of a completed run with a scenario (see history)')
    .addOption(new Option('--layout <layout>', 'the archive layout').choices(['timeeval', 'nab']).makeOptionMandatory())
    .option('--field <field>', "nab only: the numeric record field of the value column (default: the preset's first)")
    .option('--out <file>', 'write the archive to FILE (whole or not at all) instead of stdout')
    .action((simulationId: string, options: DatasetOptions) => runDataset(context, simulationId, options));
