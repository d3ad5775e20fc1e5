import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Command } from 'commander';
import type { components, ModelDefinition } from '../../sdk/index.ts';
import { type CliContext, printJson } from '../CliContext.ts';
import { formatFields, formatTable, formatTime } from '../formatTable.ts';

type Schemas = components['schemas'];

const JSON_OPTION = ['--json', "print the API's JSON instead of a table"] as const;

/** A definition file's JSON; the file's name without `.json` is the model's name unless --name says otherwise. */
const readDefinition = async (file: string): Promise<unknown> => {
  const text = await readFile(file, 'utf8');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Error(`${file} is not JSON`);
  }
};

const printModel = (context: CliContext, model: Schemas['Model']): void => {
  context.stdout.write(
    formatFields([
      ['name', model.name],
      ['version', String(model.version)],
      ['digest', model.digest],
      ['created_at', model.created_at],
      ['description', model.definition.description],
      ['profiles', model.catalog.supported_profiles.join(', ')],
      ['states', model.catalog.supported_states.join(', ')],
      ['fields', model.catalog.record_fields.map((field) => field.name).join(', ')],
      ['events', model.catalog.scenario_events.map((event) => event.type).join(', ') || '-'],
    ]),
  );
  for (const warning of model.warnings) {
    context.stderr.write(`warning: ${warning.path}: ${warning.message}\n`);
  }
};

const printIssues = (context: CliContext, label: string, issues: readonly { path: string; message: string }[]): void => {
  for (const issue of issues) {
    context.stderr.write(`${label}: ${issue.path === '' ? '(definition)' : issue.path}: ${issue.message}\n`);
  }
};

/** `bss models …`: an account's own models (docs/models.md, docs/cli.md). */
export const modelsCommand = (context: CliContext): Command => {
  const models = new Command('models').description("manage the account's own models (run one with simulate --model NAME)");
  models
    .command('put')
    .description('store a definition file as a model: its first version, or a new one (the same definition again stores nothing)')
    .argument('<file>', 'the definition, a JSON file (docs/models/ has examples)')
    .option('--name <name>', "the model's name (default: the file's name without .json)")
    .option(...JSON_OPTION)
    .action(async (file: string, options: { name?: string; json?: boolean }) => {
      const name = options.name ?? path.basename(file, '.json');
      const model = await context.client().models.put(name, (await readDefinition(file)) as ModelDefinition);
      if (options.json) {
        printJson(context, model);
        return;
      }
      printModel(context, model);
    });
  models
    .command('list')
    .description('list the models, latest version each, newest first')
    .option(...JSON_OPTION)
    .action(async (options: { json?: boolean }) => {
      const list = await context.client().models.list();
      if (options.json) {
        printJson(context, list);
        return;
      }
      context.stdout.write(
        formatTable(
          ['NAME', 'VERSION', 'CREATED', 'DESCRIPTION'],
          list.map((model) => [model.name, String(model.version), formatTime(model.created_at), model.description]),
        ),
      );
    });
  models
    .command('get')
    .description('show a model: its latest version, or NAME@VERSION')
    .argument('<name>', 'NAME or NAME@VERSION')
    .option(...JSON_OPTION)
    .action(async (reference: string, options: { json?: boolean }) => {
      const [name = '', version] = reference.split('@');
      const model = await context.client().models.get(name, version === undefined ? undefined : Number(version));
      if (options.json) {
        printJson(context, model);
        return;
      }
      printModel(context, model);
    });
  models
    .command('validate')
    .description('check a definition file without storing it: every problem with its path, the warnings and a sample')
    .argument('<file>', 'the definition, a JSON file')
    .option(...JSON_OPTION)
    .action(async (file: string, options: { json?: boolean }) => {
      const verdict = await context.client().models.validate(await readDefinition(file));
      if (options.json) {
        printJson(context, verdict);
      } else {
        printIssues(context, 'error', verdict.issues);
        printIssues(context, 'warning', verdict.warnings);
        if (verdict.sample !== null) {
          const { summary } = verdict.sample;
          context.stdout.write(
            formatTable(
              ['STATE', 'SHARE'],
              Object.entries(summary.states).map(([state, share]) => [state, `${(share * 100).toFixed(1)}%`]),
            ),
          );
        }
        if (verdict.valid) {
          context.stdout.write(`${file}: valid\n`);
        }
      }
      // A definition with problems fails the command (exit 1), so scripts and CI can gate on it.
      if (!verdict.valid) {
        throw new Error(`${file}: ${verdict.issues.length} problem(s)`);
      }
    });
  models
    .command('delete')
    .description('delete a model (every version); runs already made replay as before')
    .argument('<name>', "the model's name")
    .action(async (name: string) => {
      const deleted = await context.client().models.delete(name);
      context.stdout.write(`deleted ${deleted.name}\n`);
    });
  return models;
};
