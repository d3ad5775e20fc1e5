import { Command, CommanderError } from 'commander';
import { createBssClient, type RetryNotice } from '../sdk/index.ts';
import type { CliContext } from './CliContext.ts';
import { datasetCommand } from './commands/datasetCommand.ts';
import { downloadCommand, linkCommand } from './commands/downloadCommand.ts';
import { historyCommand } from './commands/historyCommand.ts';
import { keysCommand } from './commands/keysCommand.ts';
import { modelsCommand } from './commands/modelsCommand.ts';
import { presetsCommand } from './commands/presetsCommand.ts';
import { simulateCommand } from './commands/simulateCommand.ts';
import { streamCommand } from './commands/streamCommand.ts';
import { usageCommand } from './commands/usageCommand.ts';
import { describeCliError } from './describeCliError.ts';

const DEFAULT_API_URL = 'http://localhost:3000';

export interface CliProcess {
  readonly argv: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
  readonly signal: AbortSignal;
}

const describeRetry = (notice: RetryNotice): string =>
  `bss: HTTP ${notice.status}${notice.code === undefined ? '' : ` ${notice.code}`}, retrying in ${notice.waitSeconds} s (Retry-After; retry ${notice.retry} of ${notice.maxRetries})\n`;

/** Runs one command line; resolves with the exit code: 0 done, 1 API or runtime error, 2 malformed command line. */
export const runCli = async (cli: CliProcess): Promise<number> => {
  const context: CliContext = {
    stdout: cli.stdout,
    stderr: cli.stderr,
    signal: cli.signal,
    client: () =>
      createBssClient({
        baseUrl: cli.env.BSS_API_URL || DEFAULT_API_URL,
        apiKey: cli.env.BSS_API_KEY,
        onRetry: (notice) => cli.stderr.write(describeRetry(notice)),
      }),
  };
  const program = new Command('bss')
    .description('Command-line client of the Behavioral Simulation Service')
    .addHelpText('after', `\nEnvironment: BSS_API_URL (default ${DEFAULT_API_URL}), BSS_API_KEY (an API key, bs_live_…).`)
    .addCommand(presetsCommand(context))
    .addCommand(simulateCommand(context))
    .addCommand(streamCommand(context))
    .addCommand(modelsCommand(context))
    .addCommand(usageCommand(context))
    .addCommand(keysCommand(context))
    .addCommand(historyCommand(context))
    .addCommand(downloadCommand(context))
    .addCommand(linkCommand(context))
    .addCommand(datasetCommand(context));
  // Commands built apart and added with addCommand do not inherit these settings: give them to each.
  const configure = (command: Command): void => {
    command
      .exitOverride()
      .configureOutput({ writeOut: (text) => cli.stdout.write(text), writeErr: (text) => cli.stderr.write(text) })
      .showHelpAfterError('(add --help for usage)');
    command.commands.forEach(configure);
  };
  configure(program);
  try {
    await program.parseAsync([...cli.argv], { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help asked for exits 0; anything commander refused (unknown command or option, a bad value) is 2.
      return error.exitCode === 0 ? 0 : 2;
    }
    if ((error as NodeJS.ErrnoException).code === 'EPIPE') {
      // The reader left (`bss simulate … | head`): nothing more to say.
      return 0;
    }
    cli.stderr.write(describeCliError(error));
    return 1;
  }
};
