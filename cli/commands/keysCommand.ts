import { Command } from 'commander';
import type { components } from '../../sdk/index.ts';
import { type CliContext, printJson } from '../CliContext.ts';
import { formatFields, formatTable, formatTime } from '../formatTable.ts';
import { integerIn } from '../parseOptionValues.ts';

type Schemas = components['schemas'];

const printCreated = (context: CliContext, created: Schemas['ApiKeyCreatedOrReplayed'] | Schemas['ApiKeyRolled']): void => {
  context.stdout.write(
    formatFields([
      ['id', created.id],
      ['name', created.name],
      // A replay of the same Idempotency-Key answers the created key again, without its secret.
      ...('key' in created ? [['key', created.key] as const] : []),
      ['key_prefix', created.key_prefix],
      ['created_at', created.created_at],
      ...('previous_key_expires_at' in created ? [['previous_key_expires_at', created.previous_key_expires_at] as const] : []),
    ]),
  );
  context.stderr.write('key' in created ? 'Store the key now: it is not shown again.\n' : 'This key was created by an earlier request with the same idempotency key; its secret was shown then.\n');
};

const JSON_OPTION = ['--json', "print the API's JSON instead of a table"] as const;

export const keysCommand = (context: CliContext): Command => {
  const keys = new Command('keys').description("manage the account's API keys");
  keys
    .command('list')
    .description('list the API keys, active and revoked')
    .option(...JSON_OPTION)
    .action(async (options: { json?: boolean }) => {
      const list = await context.client().listApiKeys();
      if (options.json) {
        printJson(context, list);
        return;
      }
      context.stdout.write(
        formatTable(
          ['ID', 'NAME', 'PREFIX', 'ACTIVE', 'CREATED', 'LAST USED', 'REVOKED', 'EXPIRES'],
          list.map((key) => [
            key.id,
            key.name,
            key.key_prefix,
            key.is_active ? 'yes' : 'no',
            formatTime(key.created_at),
            formatTime(key.last_used_at),
            formatTime(key.revoked_at),
            formatTime(key.expires_at),
          ]),
        ),
      );
    });
  keys
    .command('create')
    .description('create an API key; the key is printed once')
    .argument('<name>', 'the key name, 1-100 characters')
    .option('--idempotency-key <key>', 'a key of your own, to retry safely from a script')
    .option(...JSON_OPTION)
    .action(async (name: string, options: { json?: boolean; idempotencyKey?: string }) => {
      const created = await context.client().createApiKey(name, options.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey });
      if (options.json) {
        printJson(context, created);
      } else {
        printCreated(context, created);
      }
    });
  keys
    .command('revoke')
    .description('revoke an API key at once')
    .argument('<id>', 'the key id (see keys list)')
    .option(...JSON_OPTION)
    .action(async (id: string, options: { json?: boolean }) => {
      const revoked = await context.client().revokeApiKey(id);
      if (options.json) {
        printJson(context, revoked);
      } else {
        context.stdout.write(`revoked ${revoked.id}\n`);
      }
    });
  keys
    .command('roll')
    .description('replace an API key by a new one with the same name; the old one works until it expires')
    .argument('<id>', 'the key id (see keys list)')
    .option('--expires-in <seconds>', 'how long the old key keeps working, 0-604800 s (service default 86400; 0 = now)', integerIn(0, 604_800))
    .option(...JSON_OPTION)
    .action(async (id: string, options: { json?: boolean; expiresIn?: number }) => {
      const rolled = await context.client().rollApiKey(id, options.expiresIn === undefined ? {} : { expiresIn: options.expiresIn });
      if (options.json) {
        printJson(context, rolled);
      } else {
        printCreated(context, rolled);
      }
    });
  return keys;
};
