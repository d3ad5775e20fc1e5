import { Command } from 'commander';
import { type CliContext, printJson } from '../CliContext.ts';
import { formatFields, formatTime } from '../formatTable.ts';

export const usageCommand = (context: CliContext): Command =>
  new Command('usage')
    .description("this month's usage and remaining quota of the key's account")
    .option('--json', "print the API's JSON instead of a table")
    .action(async (options: { json?: boolean }) => {
      const usage = await context.client().getUsage();
      if (options.json) {
        printJson(context, usage);
        return;
      }
      const { plan, period } = usage;
      context.stdout.write(
        formatFields([
          ['plan', plan.name],
          ['period', `${formatTime(period.start)} to ${formatTime(period.end)}`],
          ['requests', `${usage.usage.requests} of ${plan.monthly_requests} (${usage.remaining.requests} left)`],
          ['interactions', `${usage.usage.interactions} of ${plan.monthly_interactions} (${usage.remaining.interactions} left)`],
          ['per request', `at most ${plan.max_interactions_per_request} interactions`],
          ['rate', `${plan.requests_per_minute} requests/min, ${plan.max_concurrent_simulations} at once`],
        ]),
      );
    });
