import { Command, Option } from 'commander';
import type { CliContext } from '../CliContext.ts';
import { writeBytesOut } from '../writeBytesOut.ts';

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
  const bytes = await writeBytesOut(context, dataset.bytes, options.out);
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
