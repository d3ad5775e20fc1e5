import { Command } from 'commander';
import { type CliContext, printJson } from '../CliContext.ts';
import { formatTable } from '../formatTable.ts';

export const presetsCommand = (context: CliContext): Command =>
  new Command('presets')
    .description('list the simulation presets (the catalog)')
    .option('--json', 'print the API\'s JSON instead of a table')
    .action(async (options: { json?: boolean }) => {
      const presets = await context.client().listPresets();
      if (options.json) {
        printJson(context, presets);
        return;
      }
      context.stdout.write(
        formatTable(
          ['NAME', 'AVAILABLE', 'DEFAULT PROFILE', 'PROFILES', 'ENGINE VERSIONS'],
          presets.map((preset) => [
            preset.name,
            preset.available ? 'yes' : 'no',
            preset.default_profile,
            preset.supported_profiles.join(', '),
            preset.engine_versions.join(', '),
          ]),
        ),
      );
    });
