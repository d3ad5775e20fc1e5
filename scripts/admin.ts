import { parseArgs } from 'node:util';
import { ConnectionError, type DatabasePool } from 'slonik';
import { z } from 'zod';
import { apiKeyNameSchema } from '../shared/auth/apiKeyName.ts';
import { publishAuthChange } from '../shared/auth/authVersion.ts';
import { createApiKey } from '../shared/auth/createApiKey.ts';
import { DEFAULT_ROLL_EXPIRES_IN_S, rollApiKey } from '../shared/auth/rollApiKey.ts';
import { type Config, loadConfig } from '../shared/config.ts';
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
import { connectRedisOnce } from '../shared/redis/connectRedisOnce.ts';
import type { RedisClient } from '../shared/redis/createRedis.ts';
import { describeRedisTarget } from '../shared/redis/RedisTarget.ts';

// The operator's CLI (DECISIONS "Operator interfaces"): one JSON object on stdout per command; on error
// one line on stderr and a non-zero exit (2 for a malformed command line, 1 for anything else).
// `help` prints the usage below.

const USAGE = `usage: npm run --silent admin -- <command> [options]
  create-account --email E --name N [--plan P]   -> {"id","email","plan"}
  create-key --email E --name N                  -> {"id","key","key_prefix"}  (the only time the key is shown)
  roll-key --email E --key-id ID [--expires-in S] -> {"id","key","key_prefix","name","previous_key_id","previous_key_expires_at"}
                                                     (a new key of the same name; the old one works S more seconds, default 86400, 0-604800)
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
  'roll-key': { required: ['email', 'key-id'], optional: ['expires-in'] },
  'set-plan': { required: ['email', 'plan'], optional: [] },
  deactivate: { required: ['email'], optional: [] },
  activate: { required: ['email'], optional: [] },
} as const;

const HINT = ' (see `npm run --silent admin -- help`)';

const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', '3D000', '28P01', '28000']);

type Command = keyof typeof COMMAND_OPTIONS;
type Options = Partial<Record<'email' | 'name' | 'plan' | 'key-id' | 'expires-in', string>>;

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

const keyIdSchema = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'not a key id (UUID)');
const expiresInSchema = z
  .string()
  .regex(/^\d+$/, 'must be a whole number of seconds')
  .transform(Number)
  .refine((seconds) => seconds <= 604_800, 'must be at most 604800 seconds');

const parseCommandLine = (argv: readonly string[]): { command: Command | 'help'; options: Options } => {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        email: { type: 'string' },
        name: { type: 'string' },
        plan: { type: 'string' },
        'key-id': { type: 'string' },
        'expires-in': { type: 'string' },
      },
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

/** Commands that change what authentication decides: API processes must hear of them before we return. */
const CHANGES_AUTHENTICATION: ReadonlySet<Command> = new Set(['set-plan', 'deactivate', 'activate', 'roll-key']);

class RedisUnreachable extends Error {}

/**
 * Redis, where API processes learn that an account changed (shared/auth/authVersion.ts). Connected before
 * anything is changed, so an unreachable Redis fails the command without a half-announced change.
 */
const connectRedis = async (config: Config): Promise<RedisClient> => {
  try {
    return await connectRedisOnce(config.redis, 'bss:admin');
  } catch {
    throw new RedisUnreachable();
  }
};

const run = async (pool: DatabasePool, command: Command, options: Options, announce: (accountId: string) => Promise<void>): Promise<Record<string, unknown>> => {
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
    case 'roll-key': {
      const keyId = valid(keyIdSchema, options['key-id'], 'key-id');
      const expiresInS = valid(expiresInSchema, options['expires-in'] ?? String(DEFAULT_ROLL_EXPIRES_IN_S), 'expires-in');
      const account = await findOneAccountByEmail(pool, email);
      const rolled = await rollApiKey(pool, { accountId: account.id, id: keyId, expiresInS, now: new Date() });
      // The previous key's expiry (or revocation) reaches every API process that cached it.
      await announce(account.id);
      return {
        id: rolled.id,
        key: rolled.key,
        key_prefix: rolled.keyPrefix,
        name: rolled.name,
        previous_key_id: keyId,
        previous_key_expires_at: rolled.previousKeyExpiresAt,
      };
    }
    case 'set-plan': {
      const plan = options.plan ?? '';
      await requirePlan(pool, plan);
      const account = await updateAccountPlan(pool, { id: (await findOneAccountByEmail(pool, email)).id, plan });
      await announce(account.id);
      return { id: account.id, email: account.email, plan: account.plan };
    }
    case 'deactivate':
    case 'activate': {
      const account = await updateAccountActive(pool, { id: (await findOneAccountByEmail(pool, email)).id, isActive: command === 'activate' });
      await announce(account.id);
      return { id: account.id, email: account.email, is_active: account.is_active };
    }
  }
};

const explain = (error: unknown, config: Config): { message: string; exitCode: number } => {
  if (error instanceof AdminError) {
    return { message: error.message, exitCode: error.exitCode };
  }
  if (error instanceof RedisUnreachable) {
    return { message: `cannot connect to Redis at ${describeRedisTarget(config.redis)}: API processes could not be told of the change; nothing was changed`, exitCode: 1 };
  }
  if (error instanceof AppError && error.code === 'api_key_limit_reached') {
    const limit = Number(error.details.limit);
    return { message: `key limit reached: the account's plan allows ${limit} active API key${limit === 1 ? '' : 's'}; revoke one first`, exitCode: 1 };
  }
  if (error instanceof AppError && error.code === 'api_key_not_found') {
    return { message: 'no such API key on this account', exitCode: 1 };
  }
  if (error instanceof AppError && error.code === 'api_key_not_rollable') {
    return { message: 'the key is revoked or has already been rolled', exitCode: 1 };
  }
  const code = (error as { code?: unknown } | null)?.code;
  if (error instanceof ConnectionError || (typeof code === 'string' && UNREACHABLE_CODES.has(code))) {
    return { message: `cannot connect to PostgreSQL at ${redactUrl(config.databaseUrl)}: is it running, and is the database migrated (npm run migrate)?`, exitCode: 1 };
  }
  // Never the driver's message: it can carry SQL text and bound values.
  const described = describeError(error);
  return { message: `unexpected error (${described.name}${described.code === undefined ? '' : ` ${described.code}`})`, exitCode: 1 };
};

const main = async (): Promise<number> => {
  const config = loadConfig();
  let pool: DatabasePool | undefined;
  let redis: RedisClient | undefined;
  try {
    const { command, options } = parseCommandLine(process.argv.slice(2));
    if (command === 'help') {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    if (CHANGES_AUTHENTICATION.has(command)) {
      redis = await connectRedis(config);
    }
    pool = await createDatabasePool(config.databaseUrl, { maxPoolSize: 2 });
    const connected = redis;
    const result = await run(pool, command, options, async (accountId) => {
      if (connected !== undefined) {
        await publishAuthChange(connected, config.redisPrefix, accountId);
      }
    });
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return 0;
  } catch (error) {
    const { message, exitCode } = explain(error, config);
    process.stderr.write(`admin: ${message}\n`);
    return exitCode;
  } finally {
    redis?.disconnect();
    await pool?.end();
  }
};

process.exitCode = await main();
