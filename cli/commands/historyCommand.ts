import { Command } from 'commander';
import { type CliContext, printJson } from '../CliContext.ts';
import { formatTable, formatTime } from '../formatTable.ts';
import { integerIn } from '../parseOptionValues.ts';

export const historyCommand = (context: CliContext): Command =>
  new Command('history')
    .description("the account's simulation runs, newest first")
    .option('--limit <n>', 'runs per page, 1-100 (service default 20)', integerIn(1, 100))
    .option('--cursor <cursor>', 'the next page, as printed after the previous one')
    .option('--json', "print the API's JSON instead of a table")
    .action(async (options: { json?: boolean; limit?: number; cursor?: string }) => {
      const page = await context.client().listSimulations({
        ...(options.limit === undefined ? {} : { limit: options.limit }),
        ...(options.cursor === undefined ? {} : { cursor: options.cursor }),
      });
      if (options.json) {
        printJson(context, page);
        return;
      }
      context.stdout.write(
        formatTable(
          ['CREATED', 'SIMULATION ID', 'PRESET', 'PROFILE', 'SEED', 'INTERACTIONS', 'STATUS', 'COMPUTE MS', 'ENGINE', 'SCENARIO'],
          page.data.map((run) => [
            formatTime(run.created_at),
            run.simulation_id,
            run.preset,
            run.profile,
            String(run.seed),
            String(run.num_interactions),
            run.status,
            run.compute_ms === null ? '-' : String(run.compute_ms),
            run.service_version,
            // The event types, in the scenario's order, then random ones as random(types); the whole scenario is in --json.
            run.scenario === null
              ? '-'
              : [
                  ...(run.scenario.events ?? []).map((event) => event.type),
                  ...(run.scenario.random === undefined ? [] : [`random(${run.scenario.random.types.join('|')})`]),
                ].join('+'),
          ]),
        ),
      );
      if (page.next_cursor !== null) {
        context.stderr.write(`more: bss history --cursor ${page.next_cursor}\n`);
      }
    });
