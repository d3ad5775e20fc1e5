import { parseArgs } from 'node:util';
import { ConnectionError, type DatabasePool } from 'slonik';
import { z } from 'zod';
import { apiKeyNameSchema } from '../shared/auth/apiKeyName.ts';
import { createApiKey } from '../shared/auth/createApiKey.ts';
import { loadConfig } from '../shared/config.ts';
import { createDatabasePool } from '../shared/db/createDatabasePool.ts';
import {
  type AccountRow,
  findAccountsByEmail,
  insertAccount,
  lockAccountEmail,
  updateAccountActive,
  updateAccountPlan,
} from '../shared/db/queries/accounts.ts';
import { findPlanByName, listPlanNames } from '../shared/db/queries/plans.ts';
import { redactUrl } from '../shared/db/redactUrl.ts';
import { AppError } from '../shared/errors/AppError.ts';
import { describeError } from '../shared/errors/describeError.ts';

// The operator's CLI (DECISIONS "Operator interfaces"): one JSON object on stdout per command; on error
// one line on stderr and a non-zero exit (2 for a malformed command line, 1 for anything else).
// `help` prints the usage below.

const USAGE = `usage: npm run --silent admin -- <command> [options]
  create-account --email E --name N [--plan P]   -> {"id","email","plan"}
  create-key --email E --name N                  -> {"id","key","key_prefix"}  (the only time the key is shown)
  set-plan --email E --plan P                    -> {"id","email","plan"}
  deactivate --email E                           -> {"id","email","is_active"}
  activate --email E                             -> {"id","email","is_active"}`;

/** A problem the operator can act on; its message is printed as is. */
class AdminError extends Error {
  readonly exitCode: number;

  constructor(message: string, exitCode = 1) {
    super(message);
    this.exitCode = exitCode;
  }
}

const COMMAND_OPTIONS = {
  'create-account': { required: ['email', 'name'], optional: ['plan'] },
  'create-key': { required: ['email', 'name'], optional: [] },
  'set-plan': { required: ['email', 'plan'], optional: [] },
  deactivate: { required: ['email'], optional: [] },
  activate: { required: ['email'], optional: [] },
} as const;

const HINT = ' (see `npm run --silent admin -- help`)';

const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', '3D000', '28P01', '28000']);

type Command = keyof typeof COMMAND_OPTIONS;
type Options = Partial<Record<'email' | 'name' | 'plan', string>>;

const emailSchema = z
  .string()
  .trim()
  .max(254)
  .regex(/^[^\s@]+@[^\s@]+$/, 'not an e-mail address');
const displayNameSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .refine((name) => [...name].length <= 200 && !name.includes('\u0000'), 'must be at most 200 characters');

const parseCommandLine = (argv: readonly string[]): { command: Command | 'help'; options: Options } => {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: { email: { type: 'string' }, name: { type: 'string' }, plan: { type: 'string' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new AdminError(`${(error as Error).message}${HINT}`, 2);
  }
  const [command, ...extra] = parsed.positionals;
  if (command === 'help') {
    return { command, options: {} };
  }
  if (command === undefined || !Object.hasOwn(COMMAND_OPTIONS, command)) {
    throw new AdminError(`${command === undefined ? 'no command given' : `unknown command ${JSON.stringify(command)}`}${HINT}`, 2);
  }
  if (extra.length > 0) {
    throw new AdminError(`unexpected argument ${JSON.stringify(extra[0])}${HINT}`, 2);
  }
  const known = COMMAND_OPTIONS[command as Command];
  const options = parsed.values as Options;
  for (const name of Object.keys(options)) {
    if (!(known.required as readonly string[]).includes(name) && !(known.optional as readonly string[]).includes(name)) {
      throw new AdminError(`${command} does not take --${name}${HINT}`, 2);
    }
  }
  for (const name of known.required) {
    if (options[name] === undefined) {
      throw new AdminError(`${command} needs --${name}${HINT}`, 2);
    }
  }
  return { command: command as Command, options };
};

const valid = <T>(schema: z.ZodType<T>, value: string | undefined, option: string): T => {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new AdminError(`--${option}: ${parsed.error.issues[0]?.message ?? 'invalid'}`, 2);
  }
  return parsed.data;
};

/** Addresses are not unique (migration 0002): act only when exactly one account has it. */
const findOneAccountByEmail = async (pool: DatabasePool, email: string): Promise<AccountRow> => {
  const accounts = await findAccountsByEmail(pool, email);
  const [account] = accounts;
  if (account === undefined) {
    throw new AdminError(`no account has the e-mail ${email}`);
  }
  if (accounts.length > 1) {
    throw new AdminError(`ambiguous: ${accounts.length} accounts have the e-mail ${email} (${accounts.map((each) => each.id).join(', ')})`);
  }
  return account;
};

const requirePlan = async (pool: DatabasePool, plan: string): Promise<void> => {
  if ((await findPlanByName(pool, plan)) === null) {
    throw new AdminError(`unknown plan ${JSON.stringify(plan)}; known plans: ${(await listPlanNames(pool)).join(', ')}`);
  }
};

const run = async (pool: DatabasePool, command: Command, options: Options): Promise<Record<string, unknown>> => {
  const email = valid(emailSchema, options.email, 'email');
  switch (command) {
    case 'create-account': {
      const displayName = valid(displayNameSchema, options.name, 'name');
      const plan = options.plan ?? 'free';
      await requirePlan(pool, plan);
      const account = await pool.transaction(async (transaction) => {
        await lockAccountEmail(transaction, email);
        const existing = await findAccountsByEmail(transaction, email);
        if (existing.length > 0) {
          throw new AdminError(`an account with the e-mail ${email} already exists (${existing.map((each) => each.id).join(', ')})`);
        }
        return insertAccount(transaction, { email, displayName, plan });
      });
      return { id: account.id, email: account.email, plan: account.plan };
    }
    case 'create-key': {
      const name = valid(apiKeyNameSchema, options.name, 'name');
      const account = await findOneAccountByEmail(pool, email);
      const created = await createApiKey(pool, { accountId: account.id, name });
      if (created === null) {
        throw new AdminError(`no account has the e-mail ${email}`);
      }
      return { id: created.id, key: created.key, key_prefix: created.keyPrefix };
    }
    case 'set-plan': {
      const plan = options.plan ?? '';
      await requirePlan(pool, plan);
      const account = await updateAccountPlan(pool, { id: (await findOneAccountByEmail(pool, email)).id, plan });
      return { id: account.id, email: account.email, plan: account.plan };
    }
    case 'deactivate':
    case 'activate': {
      const account = await updateAccountActive(pool, { id: (await findOneAccountByEmail(pool, email)).id, isActive: command === 'activate' });
      return { id: account.id, email: account.email, is_active: account.is_active };
    }
  }
};

const explain = (error: unknown, databaseUrl: string): { message: string; exitCode: number } => {
  if (error instanceof AdminError) {
    return { message: error.message, exitCode: error.exitCode };
  }
  if (error instanceof AppError && error.code === 'api_key_limit_reached') {
    const limit = Number(error.details.limit);
    return { message: `key limit reached: the account's plan allows ${limit} active API key${limit === 1 ? '' : 's'}; revoke one first`, exitCode: 1 };
  }
  const code = (error as { code?: unknown } | null)?.code;
  if (error instanceof ConnectionError || (typeof code === 'string' && UNREACHABLE_CODES.has(code))) {
    return { message: `cannot connect to PostgreSQL at ${redactUrl(databaseUrl)}: is it running, and is the database migrated (npm run migrate)?`, exitCode: 1 };
  }
  // Never the driver's message: it can carry SQL text and bound values.
  const described = describeError(error);
  return { message: `unexpected error (${described.name}${described.code === undefined ? '' : ` ${described.code}`})`, exitCode: 1 };
};

const main = async (): Promise<number> => {
  const config = loadConfig();
  let pool: DatabasePool | undefined;
  try {
    const { command, options } = parseCommandLine(process.argv.slice(2));
    if (command === 'help') {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    pool = await createDatabasePool(config.databaseUrl, { maxPoolSize: 2 });
    const result = await run(pool, command, options);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (error) {
    const { message, exitCode } = explain(error, config.databaseUrl);
    process.stderr.write(`admin: ${message}\n`);
    return exitCode;
  } finally {
    await pool?.end();
  }
};

process.exitCode = await main();
