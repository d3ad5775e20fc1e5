import { parseArgs } from 'node:util';
import { ConnectionError, type DatabasePool } from 'slonik';
import { z } from 'zod';
import { apiKeyNameSchema } from '../shared/auth/apiKeyName.ts';
import { changeAuthentication } from '../shared/auth/authVersion.ts';
import { createApiKey } from '../shared/auth/createApiKey.ts';
import { DEFAULT_ROLL_EXPIRES_IN_S, rollApiKey } from '../shared/auth/rollApiKey.ts';
import { type Config, loadConfig } from '../shared/config.ts';
import { createDatabasePool } from '../shared/db/createDatabasePool.ts';
import {
  type AccountRow,
  findAccountById,
  findAccountsByEmail,
  insertAccount,
  listAccountsForAdmin,
  lockAccountEmail,
  updateAccountActive,
  updateAccountPlan,
} from '../shared/db/queries/accounts.ts';
import { revokeApiKey } from '../shared/db/queries/apiKeys.ts';
import { describeDatabaseProblem } from '../shared/db/describeDatabaseProblem.ts';
import { findPlanByName, listPlanNames } from '../shared/db/queries/plans.ts';
import { redactUrl } from '../shared/db/redactUrl.ts';
import { AppError } from '../shared/errors/AppError.ts';
import { describeError } from '../shared/errors/describeError.ts';
import { connectRedisOnce } from '../shared/redis/connectRedisOnce.ts';
import type { RedisClient } from '../shared/redis/createRedis.ts';
import { describeRedisTarget } from '../shared/redis/RedisTarget.ts';

// The operator's CLI (docs/operations.md#admin-cli): one JSON object on stdout per command; on error
// one line on stderr and a non-zero exit (2 for a malformed command line, 1 for anything else).
// `help` prints the usage below.

const USAGE = `usage: npm run --silent admin -- <command> [options]
  An account is named by --email E, or by --id ID when several accounts share an address.
  create-account --email E --name N [--plan P]    -> {"id","email","plan"}
  list-accounts [--email E]                       -> {"accounts":[{"id","email","display_name","plan","is_active","created_at","authentication_methods","active_api_keys"}]}
  create-key (--email E | --id ID) --name N        -> {"id","key","key_prefix"}  (the only time the key is shown)
  roll-key (--email E | --id ID) --key-id K [--expires-in S]
                                                  -> {"id","key","key_prefix","name","previous_key_id","previous_key_expires_at"}
                                                     (a new key of the same name; the old one works S more seconds, default 86400, 0-604800)
  revoke-key (--email E | --id ID) --key-id K      -> {"id","status":"revoked"}  (at once, on every API process)
  set-plan (--email E | --id ID) --plan P          -> {"id","email","plan"}
  deactivate (--email E | --id ID)                 -> {"id","email","is_active"}
  activate (--email E | --id ID)                   -> {"id","email","is_active"}`;

/** A problem the operator can act on; its message is printed as is. */
class AdminError extends Error {
  readonly exitCode: number;

  constructor(message: string, exitCode = 1) {
    super(message);
    this.exitCode = exitCode;
  }
}

// `account`: the command acts on one existing account, named by exactly one of --email and --id.
const COMMAND_OPTIONS = {
  'create-account': { required: ['email', 'name'], optional: ['plan'], account: false },
  'list-accounts': { required: [], optional: ['email'], account: false },
  'create-key': { required: ['name'], optional: [], account: true },
  'roll-key': { required: ['key-id'], optional: ['expires-in'], account: true },
  'revoke-key': { required: ['key-id'], optional: [], account: true },
  'set-plan': { required: ['plan'], optional: [], account: true },
  deactivate: { required: [], optional: [], account: true },
  activate: { required: [], optional: [], account: true },
} as const;

const HINT = ' (see `npm run --silent admin -- help`)';

const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN', '3D000', '28P01', '28000', '57P03', '53300']);
// SQLSTATE undefined_table: the schema is not there yet.
const UNDEFINED_TABLE = '42P01';

type Command = keyof typeof COMMAND_OPTIONS;
type Options = Partial<Record<'email' | 'id' | 'name' | 'plan' | 'key-id' | 'expires-in', string>>;

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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const keyIdSchema = z.string().regex(UUID, 'not a key id (UUID)');
const accountIdSchema = z.string().regex(UUID, 'not an account id (UUID)');
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
        id: { type: 'string' },
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
  const accepted: readonly string[] = [...known.required, ...known.optional, ...(known.account ? ['email', 'id'] : [])];
  for (const name of Object.keys(options)) {
    if (!accepted.includes(name)) {
      throw new AdminError(`${command} does not take --${name}${HINT}`, 2);
    }
  }
  if (known.account && (options.email === undefined) === (options.id === undefined)) {
    throw new AdminError(`${command} needs the account as either --email or --id${HINT}`, 2);
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

/**
 * The account a command names: by --id, or by --email when exactly one account has that address
 * (addresses are not unique: an unverified provider address gets an account of its own).
 */
const findAccount = async (pool: DatabasePool, options: Options): Promise<AccountRow> => {
  if (options.id !== undefined) {
    const id = valid(accountIdSchema, options.id, 'id');
    const account = await findAccountById(pool, id);
    if (account === null) {
      throw new AdminError(`no account has the id ${id}`);
    }
    return account;
  }
  const email = valid(emailSchema, options.email, 'email');
  const accounts = await findAccountsByEmail(pool, email);
  const [account] = accounts;
  if (account === undefined) {
    throw new AdminError(`no account has the e-mail ${email}`);
  }
  if (accounts.length > 1) {
    throw new AdminError(
      `ambiguous: ${accounts.length} accounts have the e-mail ${email} (${accounts.map((each) => each.id).join(', ')}); name one with --id (list-accounts --email ${email} shows them)`,
    );
  }
  return account;
};

const requirePlan = async (pool: DatabasePool, plan: string): Promise<void> => {
  if ((await findPlanByName(pool, plan)) === null) {
    throw new AdminError(`unknown plan ${JSON.stringify(plan)}; known plans: ${(await listPlanNames(pool)).join(', ')}`);
  }
};

/** Commands that change what authentication decides: API processes must hear of them before we return. */
const CHANGES_AUTHENTICATION: ReadonlySet<Command> = new Set(['set-plan', 'deactivate', 'activate', 'roll-key', 'revoke-key']);

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

/** Runs a change of what authentication decides for an account so that every API process hears of it exactly. */
type Announce = <T>(accountId: string, change: () => Promise<T>) => Promise<T>;

const run = async (pool: DatabasePool, command: Command, options: Options, announce: Announce): Promise<Record<string, unknown>> => {
  switch (command) {
    case 'create-account': {
      const email = valid(emailSchema, options.email, 'email');
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
      const account = await findAccount(pool, options);
      const created = await createApiKey(pool, { accountId: account.id, name });
      if (created === null) {
        throw new AdminError(`no account has the id ${account.id}`);
      }
      return { id: created.id, key: created.key, key_prefix: created.keyPrefix };
    }
    case 'roll-key': {
      const keyId = valid(keyIdSchema, options['key-id'], 'key-id');
      const expiresInS = valid(expiresInSchema, options['expires-in'] ?? String(DEFAULT_ROLL_EXPIRES_IN_S), 'expires-in');
      const account = await findAccount(pool, options);
      // The previous key's expiry (or revocation) reaches every API process that cached it.
      const rolled = await announce(account.id, () => rollApiKey(pool, { accountId: account.id, id: keyId, expiresInS, now: new Date() }));
      return {
        id: rolled.id,
        key: rolled.key,
        key_prefix: rolled.keyPrefix,
        name: rolled.name,
        previous_key_id: keyId,
        previous_key_expires_at: rolled.previousKeyExpiresAt,
      };
    }
    case 'revoke-key': {
      const keyId = valid(keyIdSchema, options['key-id'], 'key-id');
      const account = await findAccount(pool, options);
      // As DELETE /v1/api-keys/{key_id}: every API process that cached the key refuses it from its next request.
      const revoked = await announce(account.id, () => revokeApiKey(pool, { accountId: account.id, id: keyId }));
      if (revoked === null) {
        throw new AdminError('no such API key on this account');
      }
      return { id: revoked, status: 'revoked' };
    }
    case 'list-accounts': {
      const email = options.email === undefined ? undefined : valid(emailSchema, options.email, 'email');
      return { accounts: await listAccountsForAdmin(pool, { email }) };
    }
    case 'set-plan': {
      const plan = options.plan ?? '';
      await requirePlan(pool, plan);
      const { id } = await findAccount(pool, options);
      const account = await announce(id, () => updateAccountPlan(pool, { id, plan }));
      return { id: account.id, email: account.email, plan: account.plan };
    }
    case 'deactivate':
    case 'activate': {
      const { id } = await findAccount(pool, options);
      const account = await announce(id, () => updateAccountActive(pool, { id, isActive: command === 'activate' }));
      return { id: account.id, email: account.email, is_active: account.is_active };
    }
  }
};

const codeOf = (error: unknown): string | undefined => {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
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
  // slonik wraps the driver's error; its cause carries the SQLSTATE or socket code.
  const cause = (error as { cause?: unknown } | null)?.cause;
  const code = codeOf(error) ?? codeOf(cause);
  if (error instanceof ConnectionError || (code !== undefined && UNREACHABLE_CODES.has(code))) {
    // Named by its code (wrong role or password, no database, server down), as `npm start` does.
    return { message: describeDatabaseProblem(codeOf(error) === undefined && cause !== undefined ? cause : error, config.databaseUrl), exitCode: 1 };
  }
  if (code === UNDEFINED_TABLE) {
    return { message: `the database at ${redactUrl(config.databaseUrl)} is not migrated: run npm run migrate (or npm start) first`, exitCode: 1 };
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
    const announce: Announce = async (accountId, change) =>
      connected === undefined
        ? change()
        : changeAuthentication(connected, config.redisPrefix, accountId, change, () => {
            // Committed and exact all the same: API processes read PostgreSQL for this account until the mark expires.
            process.stderr.write('admin: warning: could not signal the change through Redis; it is in force all the same (API processes read this account from PostgreSQL for a while)\n');
          });
    const result = await run(pool, command, options, announce);
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
