import { Command, Option } from 'commander';
import type { SimulationFormat } from '../../sdk/index.ts';
import { type CliContext, printJson } from '../CliContext.ts';
import { writeBytesOut } from '../writeBytesOut.ts';
import { integerIn } from '../parseOptionValues.ts';

const FORMATS = ['json', 'ndjson', 'csv', 'parquet'];

interface DownloadOptions {
  format: SimulationFormat;
  out?: string;
}

const runDownload = async (context: CliContext, simulationId: string, options: DownloadOptions): Promise<void> => {
  const download = await context.client().downloadRecords(simulationId, options.format, { signal: context.signal });
  const bytes = await writeBytesOut(context, download.bytes, options.out);
  const resumes = download.resumes();
  if (context.stderr.isTTY === true || resumes > 0) {
    context.stderr.write(`${bytes} bytes${options.out === undefined ? '' : ` written to ${options.out}`}${resumes === 0 ? '' : `; resumed ${resumes} time${resumes === 1 ? '' : 's'} after a cut connection`}\n`);
  }
};

/** `bss download ID`: a completed run's records again, resumed with Range after a cut connection. */
export const downloadCommand = (context: CliContext): Command =>
  new Command('download')
    .description("a completed run's records again, byte for byte as first answered; a cut connection is resumed where it stopped")
    .argument('<simulation_id>', 'the simulation id of a completed run (see history)')
    .addOption(new Option('--format <format>', 'output format').choices(FORMATS).default('json'))
    .option('--out <file>', 'write the records to FILE (whole or not at all) instead of stdout')
    .action((simulationId: string, options: DownloadOptions) => runDownload(context, simulationId, options));

interface LinkOptions {
  format: SimulationFormat;
  expiresIn?: number;
  json?: boolean;
}

/** `bss link ID --format F`: a URL that serves the run with no credentials (pandas, DuckDB, curl). */
export const linkCommand = (context: CliContext): Command =>
  new Command('link')
    .description("print a download link that serves a completed run's records with no credentials until it expires")
    .argument('<simulation_id>', 'the simulation id of a completed run (see history)')
    .addOption(new Option('--format <format>', 'the format the link serves').choices(FORMATS).makeOptionMandatory())
    .option('--expires-in <seconds>', 'seconds the link lives, 60-604800 (default 3600)', integerIn(60, 604_800))
    .option('--json', 'print the API JSON')
    .action(async (simulationId: string, options: LinkOptions) => {
      const link = await context.client().createDownloadLink(simulationId, { format: options.format, ...(options.expiresIn === undefined ? {} : { expiresIn: options.expiresIn }) });
      if (options.json === true) {
        printJson(context, link);
        return;
      }
      context.stdout.write(`${link.url}\n`);
      if (context.stderr.isTTY === true) {
        context.stderr.write(`serves ${link.format} until ${link.expires_at}\n`);
      }
    });
