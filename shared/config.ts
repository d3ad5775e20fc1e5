import os from 'node:os';
import { z } from 'zod';
import { deepFreeze } from './engine/deepFreeze.ts';
import { PRESETS } from './engine/index.ts';
import type { RedisNode, RedisTarget } from './redis/RedisTarget.ts';

const DEV_SESSION_SECRET = 'development-only-session-secret-change-me-0123456789';

const optionalString = z
  .string()
  .optional()
  .transform((value) => (value === '' ? undefined : value));

const url = z.url({ protocol: /^https?$/ });

/** Namespace of every Redis key the service writes, BullMQ's included; API and worker must agree on it. */
const DEFAULT_REDIS_PREFIX = 'bss';

/**

 * The longest SIMULATION_TIMEOUT_MS accepted, in milliseconds (10 minutes). The worker refuses a job whose
 * deadline lies further ahead than this, whatever wrote it.
 */
export const MAX_SIMULATION_TIMEOUT_MS = 600_000;

/**
 * Every setting the service reads from the environment. Each `.describe()` text is also the
 * configuration table of docs/configuration.md (test/spine/config.test.ts keeps them equal), so say unit and default there.
 */
export const configSchema = z.object({
  NODE_ENV: z
    .enum(['development', 'test', 'production'])
    .default('development')
    .describe('`development` (default), `test` or `production`. Only `production` marks the cookie `Secure` and demands every secret.'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000).describe('HTTP port of the API. Default `3000`.'),
  DATABASE_URL: optionalString.describe('PostgreSQL connection URI. Default `postgres://postgres@127.0.0.1:5432/behavioral_sim` outside production.'),
  REDIS_URL: optionalString.describe('Redis URI, may carry a database index (`redis://host:6379/9`). Default `redis://127.0.0.1:6379` outside production.'),
  REDIS_CLUSTER_NODES: optionalString.describe(
    'Comma-separated `host:port` seed nodes of a Redis Cluster (`redis-1:6379,redis-2:6379`). When set, every Redis use runs on the cluster and `REDIS_URL` is ignored. Default unset: one Redis at `REDIS_URL`.',
  ),
  REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9:._-]{0,63}$/)
    .default(DEFAULT_REDIS_PREFIX)
    .describe('Prefix of every Redis key, queue keys included; API and worker processes sharing one must use the same. Default `bss`.'),
  PUBLIC_URL: optionalString.describe("The service's own origin, for OAuth redirect URIs and the CSRF check. Default `http://localhost:<PORT>` outside production."),
  FRONTEND_URL: optionalString.describe('Where logins land (`<FRONTEND_URL>/account`). Default `PUBLIC_URL`.'),
  SESSION_SECRET: optionalString.describe('Secret (32+ characters) that encrypts and authenticates the session cookie. Required in production.'),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
    .default('info')
    .describe('pino log level. Default `info`.'),
  WORKER_THREADS: z.coerce.number().int().min(1).max(256).optional().describe('Engine threads per worker process. Default: cores − 1, at least 1.'),
  WORKER_CONCURRENCY: z.coerce
    .number()
    .int()
    .min(1)
    .max(1024)
    .default(64)
    .describe('Runs one worker process serves at once, shared out among its threads, which take turns chunk by chunk (a run whose client does not read holds no thread). Default `64`.'),
  STREAM_STALL_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(MAX_SIMULATION_TIMEOUT_MS)
    .default(10_000)
    .describe('A streamed run whose client takes no bytes for this long (bytes the operating system delivered, see [Fair use](fair-use.md)) is ended like a client that left (`cancelled`); in milliseconds. Default `10000`.'),
  WEBHOOK_ALLOW_PRIVATE: z
    .enum(['true', 'false'])
    .optional()
    .describe('`true` lets stream webhooks reach loopback, private, link-local and metadata addresses. Refused in production unless `true`; allowed elsewhere.'),
  STREAM_WORKER_CONCURRENCY: z.coerce
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(2000)
    .describe('Live streams one worker process runs at once (each waits on its clock; the engine work goes to the pool in chunks). Default `2000`.'),
  DATA_PLANE_HOST: z
    .string()
    .min(1)
    .default('127.0.0.1')
    .describe("Interface the API process's data plane (the HTTP/2 port workers send results to) listens on. Default `127.0.0.1`; `0.0.0.0` when workers run on other hosts."),
  DATA_PLANE_PORT: z.coerce
    .number()
    .int()
    .min(0)
    .max(65535)
    .default(0)
    .describe("Port of the API process's data plane; `0` (default) takes a free one, a port of its own for every API process."),
  DATA_PLANE_ADVERTISE_HOST: optionalString.describe(
    'Host name or address workers reach this API process\'s data plane at. Default `DATA_PLANE_HOST`, or the machine\'s host name when that is `0.0.0.0`.',
  ),
  DATA_PLANE_ADVERTISE_PORT: z.coerce
    .number()
    .int()
    .min(1)
    .max(65535)
    .optional()
    .describe('Port workers reach the data plane at, when a proxy or port mapping lies between. Default: the port it listens on.'),
  SIMULATION_TIMEOUT_MS: z.coerce.number().int().min(100).max(MAX_SIMULATION_TIMEOUT_MS).default(30_000).describe('Deadline of one simulation, queueing included, in milliseconds. Default `30000`.'),
  DISABLED_PRESETS: z
    .string()
    .default('')
    .describe('Comma-separated presets to take out of service: the catalog shows them `available: false` and simulations on them answer 409. Default none.'),
  HTTP_HEADERS_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(600_000)
    .default(10_000)
    .describe('How long a client may take to send its request headers before it is answered 408 and disconnected; in milliseconds. Default `10000`.'),
  HTTP_REQUEST_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(600_000)
    .default(30_000)
    .describe('How long a client may take to send its whole request, body included, before it is answered 408 and disconnected (not the time to answer it); in milliseconds, at least `HTTP_HEADERS_TIMEOUT_MS`. Default `30000`.'),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .min(100)
    .max(600_000)
    .default(65_000)
    .describe("How long an idle keep-alive connection stays open; keep it above the load balancer's idle timeout so the balancer closes first. In milliseconds. Default `65000`."),
  API_PROCESSES: z.coerce.number().int().min(1).max(64).default(1).describe('API processes `npm start` runs. Default `1`.'),
  WORKER_PROCESSES: z.coerce.number().int().min(0).max(64).default(1).describe('Worker processes `npm start` runs. Default `1`.'),
  OAUTH_GITHUB_CLIENT_ID: optionalString.describe('GitHub OAuth app client id. GitHub sign-in answers 503 while unset.'),
  OAUTH_GITHUB_CLIENT_SECRET: optionalString.describe('GitHub OAuth app client secret.'),
  OAUTH_GITHUB_AUTHORIZE_URL: url.default('https://github.com/login/oauth/authorize').describe('GitHub authorize endpoint. Default the real one.'),
  OAUTH_GITHUB_TOKEN_URL: url.default('https://github.com/login/oauth/access_token').describe('GitHub token endpoint. Default the real one.'),
  OAUTH_GITHUB_API_URL: url.default('https://api.github.com').describe('Base of GitHub `GET /user` and `GET /user/emails`. Default the real one.'),
  OAUTH_GOOGLE_CLIENT_ID: optionalString.describe('Google OAuth client id. Google sign-in answers 503 while unset.'),
  OAUTH_GOOGLE_CLIENT_SECRET: optionalString.describe('Google OAuth client secret.'),
  OAUTH_GOOGLE_AUTHORIZE_URL: url.default('https://accounts.google.com/o/oauth2/v2/auth').describe('Google authorize endpoint. Default the real one.'),
  OAUTH_GOOGLE_TOKEN_URL: url.default('https://oauth2.googleapis.com/token').describe('Google token endpoint. Default the real one.'),
  OAUTH_GOOGLE_USERINFO_URL: url.default('https://openidconnect.googleapis.com/v1/userinfo').describe('Google OIDC userinfo endpoint. Default the real one.'),
  ADMIN_TOKEN: optionalString.describe('Bearer token for the queue dashboard at `/admin/queues`; the dashboard is absent while unset.'),
  METRICS_TOKEN: optionalString.describe('Bearer token `/metrics` demands; open while unset.'),
  SHUTDOWN_DELAY_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(60_000)
    .optional()
    .describe('After SIGTERM, how long an API process keeps serving with `/ready` at 503 before it stops accepting connections, so a load balancer polling `/ready` moves traffic first; in milliseconds. Default `5000` in production, `0` otherwise.'),
});

export interface Config {
  readonly nodeEnv: 'development' | 'test' | 'production';
  readonly isProduction: boolean;
  readonly port: number;
  readonly databaseUrl: string;
  /** One Redis (REDIS_URL) or a Redis Cluster (REDIS_CLUSTER_NODES). */
  readonly redis: RedisTarget;
  readonly redisPrefix: string;
  readonly publicUrl: string;
  readonly publicOrigin: string;
  readonly frontendUrl: string;
  readonly sessionSecret: string;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  readonly workerThreads: number;
  readonly workerConcurrency: number;
  readonly streamStallTimeoutMs: number;
  /** Whether stream webhooks may reach non-public addresses (docs/streams.md). */
  readonly webhookAllowPrivate: boolean;
  readonly streamWorkerConcurrency: number;
  readonly dataPlane: { readonly host: string; readonly port: number; readonly advertiseHost: string | undefined; readonly advertisePort: number | undefined };
  readonly simulationTimeoutMs: number;
  readonly disabledPresets: ReadonlySet<string>;
  readonly httpHeadersTimeoutMs: number;
  readonly httpRequestTimeoutMs: number;
  readonly httpKeepAliveTimeoutMs: number;
  readonly apiProcesses: number;
  readonly workerProcesses: number;
  readonly oauth: {
    readonly github: OAuthProviderConfig;
    readonly google: OAuthProviderConfig;
  };
  readonly adminToken: string | undefined;
  readonly metricsToken: string | undefined;
  readonly shutdownDelayMs: number;
}

export interface OAuthProviderConfig {
  readonly clientId: string | undefined;
  readonly clientSecret: string | undefined;
  readonly authorizeUrl: string;
  readonly tokenUrl: string;
  /** GitHub: API base (`/user`, `/user/emails`); Google: the userinfo URL. */
  readonly profileUrl: string;
}

export class ConfigError extends Error {
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/** Parses an environment into the frozen configuration, collecting every problem before failing. */
export const parseConfig = (env: Readonly<Record<string, string | undefined>>): Config => {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  }
  const value = parsed.data;
  const isProduction = value.NODE_ENV === 'production';
  const problems: string[] = [];
  const required = (name: keyof typeof value, fallback: string): string => {
    const given = value[name];
    if (typeof given === 'string') {
      return given;
    }
    if (isProduction) {
      problems.push(`${name}: required when NODE_ENV=production`);
    }
    return fallback;
  };

  const publicUrl = required('PUBLIC_URL', `http://localhost:${value.PORT}`).replace(/\/+$/, '');
  const config: Config = {
    nodeEnv: value.NODE_ENV,
    isProduction,
    port: value.PORT,
    databaseUrl: required('DATABASE_URL', 'postgres://postgres@127.0.0.1:5432/behavioral_sim'),
    redis:
      value.REDIS_CLUSTER_NODES === undefined
        ? { kind: 'single', url: required('REDIS_URL', 'redis://127.0.0.1:6379') }
        : { kind: 'cluster', nodes: parseClusterNodes(value.REDIS_CLUSTER_NODES, problems) },
    redisPrefix: value.REDIS_PREFIX,
    publicUrl,
    publicOrigin: safeOrigin(publicUrl, 'PUBLIC_URL', problems),
    frontendUrl: (value.FRONTEND_URL ?? publicUrl).replace(/\/+$/, ''),
    sessionSecret: required('SESSION_SECRET', DEV_SESSION_SECRET),
    logLevel: value.LOG_LEVEL,
    workerThreads: value.WORKER_THREADS ?? Math.max(1, os.availableParallelism() - 1),
    workerConcurrency: value.WORKER_CONCURRENCY,
    streamStallTimeoutMs: value.STREAM_STALL_TIMEOUT_MS,
    webhookAllowPrivate: value.WEBHOOK_ALLOW_PRIVATE === undefined ? !isProduction : value.WEBHOOK_ALLOW_PRIVATE === 'true',
    streamWorkerConcurrency: value.STREAM_WORKER_CONCURRENCY,
    dataPlane: { host: value.DATA_PLANE_HOST, port: value.DATA_PLANE_PORT, advertiseHost: value.DATA_PLANE_ADVERTISE_HOST, advertisePort: value.DATA_PLANE_ADVERTISE_PORT },
    simulationTimeoutMs: value.SIMULATION_TIMEOUT_MS,
    disabledPresets: new Set(value.DISABLED_PRESETS.split(',').map((name) => name.trim()).filter((name) => name !== '')),
    httpHeadersTimeoutMs: value.HTTP_HEADERS_TIMEOUT_MS,
    httpRequestTimeoutMs: value.HTTP_REQUEST_TIMEOUT_MS,
    httpKeepAliveTimeoutMs: value.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    apiProcesses: value.API_PROCESSES,
    workerProcesses: value.WORKER_PROCESSES,
    oauth: {
      github: {
        clientId: value.OAUTH_GITHUB_CLIENT_ID,
        clientSecret: value.OAUTH_GITHUB_CLIENT_SECRET,
        authorizeUrl: value.OAUTH_GITHUB_AUTHORIZE_URL,
        tokenUrl: value.OAUTH_GITHUB_TOKEN_URL,
        profileUrl: value.OAUTH_GITHUB_API_URL.replace(/\/+$/, ''),
      },
      google: {
        clientId: value.OAUTH_GOOGLE_CLIENT_ID,
        clientSecret: value.OAUTH_GOOGLE_CLIENT_SECRET,
        authorizeUrl: value.OAUTH_GOOGLE_AUTHORIZE_URL,
        tokenUrl: value.OAUTH_GOOGLE_TOKEN_URL,
        profileUrl: value.OAUTH_GOOGLE_USERINFO_URL,
      },
    },
    adminToken: value.ADMIN_TOKEN,
    metricsToken: value.METRICS_TOKEN,
    shutdownDelayMs: value.SHUTDOWN_DELAY_MS ?? (isProduction ? 5000 : 0),
  };
  const presetNames = new Set<string>(PRESETS.map((preset) => preset.name));
  for (const name of config.disabledPresets) {
    if (!presetNames.has(name)) {
      problems.push(`DISABLED_PRESETS: ${name} is not a preset (one of ${[...presetNames].join(', ')})`);
    }
  }
  if (config.httpHeadersTimeoutMs > config.httpRequestTimeoutMs) {
    // Node refuses a headers timeout longer than the request's, which contains it.
    problems.push('HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS');
  }
  if (config.sessionSecret.length < 32) {
    problems.push('SESSION_SECRET: must be at least 32 characters');
  }
  if (problems.length > 0) {
    throw new ConfigError(problems);
  }
  return deepFreeze(config);
};

/** For entry points: parse process.env once, or print every problem and exit. */
export const loadConfig = (): Config => {
  try {
    return parseConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
};

const parseClusterNodes = (value: string, problems: string[]): RedisNode[] => {
  const nodes: RedisNode[] = [];
  const entries = value.split(',').map((part) => part.trim()).filter((part) => part !== '');
  for (const entry of entries) {
    const match = /^(.+):(\d{1,5})$/.exec(entry);
    const port = Number(match?.[2]);
    if (match === null || port < 1 || port > 65535) {
      problems.push(`REDIS_CLUSTER_NODES: ${entry} is not host:port`);
    } else {
      nodes.push({ host: match[1]!, port });
    }
  }
  if (entries.length === 0) {
    problems.push('REDIS_CLUSTER_NODES: names no node');
  }
  return nodes;
};

const safeOrigin = (value: string, name: string, problems: string[]): string => {
  try {
    return new URL(value).origin;
  } catch {
    problems.push(`${name}: not a URL`);
    return value;
  }
};
