import { z } from 'zod';
import { accountResponseSchema } from '../routes/account/schema.ts';
import { apiKeyCreatedSchema, apiKeyListSchema, apiKeyRevokedSchema, createApiKeyBodySchema } from '../routes/apiKeys/schema.ts';
import { logoutResponseSchema, providerSchema } from '../routes/auth/schema.ts';
import { healthResponseSchema, readinessResponseSchema } from '../routes/health/schema.ts';
import { presetListSchema, presetSchema } from '../routes/presets/schema.ts';
import { simulationRequestSchema, simulationResultSchema } from '../routes/simulations/schema.ts';
import { usageResponseSchema } from '../routes/usage/schema.ts';

/** A JSON body, by the name of its component in the document. */
export interface NamedSchema {
  readonly name: string;
  readonly schema: z.ZodType;
}

export interface ResponseSpec {
  readonly description: string;
  /** A JSON body; `error` is the error envelope. */
  readonly body?: NamedSchema | 'error';
  /** A non-JSON body, by media type (the metrics exposition). */
  readonly text?: string;
  /** Response headers beyond X-Request-ID, by name: their descriptions. */
  readonly headers?: Readonly<Record<string, string>>;
}

export interface ParameterSpec {
  readonly name: string;
  readonly in: 'path' | 'query';
  readonly description: string;
  readonly schema: z.ZodType;
  readonly required: boolean;
}

export type SecurityName = 'apiKey' | 'sessionCookie' | 'metricsToken';

export interface OperationSpec {
  readonly method: 'get' | 'post' | 'delete';
  /** OpenAPI path template: `/v1/api-keys/{key_id}`. */
  readonly path: string;
  readonly operationId: string;
  readonly tag: 'Probes' | 'Catalog' | 'Simulations' | 'Account' | 'API keys' | 'Sign-in' | 'Operations';
  readonly summary: string;
  readonly description?: string;
  /** Alternatives, any one of which suffices; absent for public operations. */
  readonly security?: readonly (readonly SecurityName[])[];
  readonly parameters?: readonly ParameterSpec[];
  readonly requestBody?: NamedSchema;
  readonly responses: Readonly<Record<number, ResponseSpec>>;
}

const named = (name: string, schema: z.ZodType): NamedSchema => ({ name, schema });

const error = (description: string, headers?: Record<string, string>): ResponseSpec => ({ description, body: 'error', ...(headers ? { headers } : {}) });

const CALLER = [['apiKey'], ['sessionCookie']] as const;
const RETRY_AFTER = { 'Retry-After': 'Seconds to wait before retrying; equals `details.retry_after`.' };
const RATE_LIMIT_FIELDS = {
  'RateLimit-Policy': 'The rate-limit policy, `"rpm";q=<limit>;w=60` (draft-ietf-httpapi-ratelimit-headers).',
  RateLimit: 'The window now, `"rpm";r=<remaining>;t=<seconds until the oldest counted request leaves>`.',
};

const authFailures = {
  401: error('`authentication_required` without credentials; `invalid_credentials` for an unknown, malformed or revoked key, or a tampered, expired or ended session.', {
    'WWW-Authenticate': 'The Bearer challenge.',
  }),
  403: error('`account_disabled` when the account is deactivated; `csrf_rejected` for a cookie-authenticated POST or DELETE from another origin.'),
} as const;

const bodyFailures = {
  400: error('`invalid_json`: the body is not parseable JSON (or not UTF-8).'),
  413: error('`payload_too_large`: the body exceeds 16 KiB.'),
  415: error('`unsupported_media_type`: a body that is not `application/json`.'),
  422: error('`validation_failed`: the body fails the schema; `details.issues` lists `{path, message}` per problem, unknown fields included.'),
} as const;

const unavailable = error('`service_unavailable`: PostgreSQL or Redis cannot be reached; retry after `details.retry_after` seconds.', RETRY_AFTER);

/**
 * Every documented operation, its schemas imported from the route modules' schema.ts, which the routes
 * validate and present with: the document and the behaviour have one source. test/ops/openapi.test.ts
 * checks this list against the routers in both directions.
 */
export const OPERATIONS: readonly OperationSpec[] = [
  {
    method: 'get',
    path: '/health',
    operationId: 'getHealth',
    tag: 'Probes',
    summary: 'Liveness',
    description: 'Answers 200 while the process serves; touches neither the database nor Redis.',
    responses: { 200: { description: 'The process is alive.', body: named('HealthStatus', healthResponseSchema) } },
  },
  {
    method: 'get',
    path: '/ready',
    operationId: 'getReadiness',
    tag: 'Probes',
    summary: 'Readiness',
    description: 'Checks PostgreSQL and Redis, each within 1 s. 503 when either fails, and while the process drains for shutdown.',
    responses: {
      200: { description: 'Ready to serve.', body: named('ReadinessStatus', readinessResponseSchema) },
      503: { description: 'Not ready: a dependency is down, or the process is shutting down.', body: named('ReadinessStatus', readinessResponseSchema) },
    },
  },
  {
    method: 'get',
    path: '/v1/presets',
    operationId: 'listPresets',
    tag: 'Catalog',
    summary: 'List the presets',
    responses: { 200: { description: 'Every preset.', body: named('PresetList', presetListSchema) } },
  },
  {
    method: 'get',
    path: '/v1/presets/{preset}',
    operationId: 'getPreset',
    tag: 'Catalog',
    summary: 'One preset',
    parameters: [
      {
        name: 'preset',
        in: 'path',
        required: true,
        description: 'A preset name (`education`, `finance`, `healthcare`, `mobile_app`) or the alias `mobile`.',
        schema: presetSchema.shape.name,
      },
    ],
    responses: {
      200: { description: 'The preset (the canonical one for an alias).', body: named('Preset', presetSchema) },
      404: error('`preset_not_found`: no preset has that name.'),
    },
  },
  {
    method: 'post',
    path: '/v1/simulations',
    operationId: 'runSimulation',
    tag: 'Simulations',
    summary: 'Run a simulation',
    description:
      'Checks, in order: authentication (401/403), the rate limit (429), the body (400/413/415/422), the per-request maximum, the monthly request and interaction quotas (403), a concurrency slot (429); then runs the simulation. Answers past authentication carry `RateLimit-Policy` and `RateLimit`.',
    security: CALLER,
    requestBody: named('SimulationRequest', simulationRequestSchema),
    responses: {
      200: { description: 'The Simulation result.', body: named('SimulationResult', simulationResultSchema), headers: RATE_LIMIT_FIELDS },
      ...bodyFailures,
      401: authFailures[401],
      403: error(
        '`account_disabled`, `csrf_rejected`, `interactions_per_request_exceeded` (`limit`, `requested`), `monthly_request_quota_exceeded` (`limit`, `used`, `resets_at`) or `monthly_interaction_quota_exceeded` (`limit`, `used`, `requested`, `resets_at`).',
        RATE_LIMIT_FIELDS,
      ),
      409: error('`preset_unavailable`: the preset is currently unavailable.'),
      429: error('`rate_limit_exceeded` or `concurrency_limit_exceeded`, with `limit` and `retry_after`.', { ...RETRY_AFTER, ...RATE_LIMIT_FIELDS }),
      500: error('`internal_error`: the run failed unexpectedly; it costs no quota.'),
      503: unavailable,
      504: error('`simulation_timeout`: the run did not finish within the deadline (default 30 s); it costs no quota.'),
    },
  },
  {
    method: 'get',
    path: '/v1/account',
    operationId: 'getAccount',
    tag: 'Account',
    summary: "The caller's account",
    security: CALLER,
    responses: { 200: { description: 'The account.', body: named('Account', accountResponseSchema) }, ...authFailures },
  },
  {
    method: 'get',
    path: '/v1/usage',
    operationId: 'getUsage',
    tag: 'Account',
    summary: "The caller's plan, usage and remaining quota this month",
    security: CALLER,
    responses: { 200: { description: 'Usage and quota of the current calendar month (UTC).', body: named('Usage', usageResponseSchema) }, ...authFailures },
  },
  {
    method: 'get',
    path: '/v1/api-keys',
    operationId: 'listApiKeys',
    tag: 'API keys',
    summary: "List the caller's API keys, active and revoked",
    security: CALLER,
    responses: { 200: { description: 'Metadata only; secrets are never shown again.', body: named('ApiKeyList', apiKeyListSchema) }, ...authFailures },
  },
  {
    method: 'post',
    path: '/v1/api-keys',
    operationId: 'createApiKey',
    tag: 'API keys',
    summary: 'Create an API key',
    description: 'The raw key is in this response only.',
    security: CALLER,
    requestBody: named('CreateApiKeyRequest', createApiKeyBodySchema),
    responses: {
      201: { description: 'The created key, with its secret.', body: named('ApiKeyCreated', apiKeyCreatedSchema) },
      ...bodyFailures,
      401: authFailures[401],
      403: error("`api_key_limit_reached` (`limit`) beyond the plan's active keys; `account_disabled`; `csrf_rejected`."),
    },
  },
  {
    method: 'delete',
    path: '/v1/api-keys/{key_id}',
    operationId: 'revokeApiKey',
    tag: 'API keys',
    summary: 'Revoke an API key',
    description: 'Idempotent for one\'s own keys. A revoked key fails on the very next request.',
    security: CALLER,
    parameters: [{ name: 'key_id', in: 'path', required: true, description: 'The key id (UUID).', schema: apiKeyRevokedSchema.shape.id }],
    responses: {
      200: { description: 'Revoked.', body: named('ApiKeyRevoked', apiKeyRevokedSchema) },
      ...authFailures,
      404: error("`api_key_not_found`: unknown, malformed, or another account's key id."),
    },
  },
  {
    method: 'get',
    path: '/v1/auth/{provider}',
    operationId: 'startSignIn',
    tag: 'Sign-in',
    summary: 'Start an OAuth sign-in',
    description: 'Redirects the browser to the identity provider with a fresh CSRF state (and PKCE challenge).',
    parameters: [{ name: 'provider', in: 'path', required: true, description: 'The identity provider.', schema: providerSchema }],
    responses: {
      302: { description: "Redirect to the provider's authorize endpoint.", headers: { Location: "The provider's authorize URL." } },
      404: error('`provider_not_found`: not `github` or `google`.'),
      405: error('`method_not_allowed`: `GET /v1/auth/logout` (logout takes POST).', { Allow: 'The methods the path takes.' }),
      503: error('`service_unavailable`: the provider is not configured on this server.', RETRY_AFTER),
    },
  },
  {
    method: 'get',
    path: '/v1/auth/{provider}/callback',
    operationId: 'finishSignIn',
    tag: 'Sign-in',
    summary: "The provider's redirect back",
    description:
      'Checks the state, exchanges the code, finds or creates the account, sets the `service_session` cookie and redirects to `{FRONTEND_URL}/account`. Any failure redirects to `{FRONTEND_URL}/account?error=<code>` without a session.',
    parameters: [
      { name: 'provider', in: 'path', required: true, description: 'The identity provider.', schema: providerSchema },
      { name: 'state', in: 'query', required: true, description: 'The CSRF state of the sign-in.', schema: z.string() },
      { name: 'code', in: 'query', required: false, description: 'The authorization code (absent when the user refused).', schema: z.string() },
    ],
    responses: {
      302: { description: 'Redirect to the frontend, signed in or with `?error=`.', headers: { Location: 'The frontend destination.', 'Set-Cookie': 'The session cookie, on success.' } },
      404: error('`provider_not_found`.'),
      503: error('`service_unavailable`: the provider is not configured on this server.', RETRY_AFTER),
    },
  },
  {
    method: 'post',
    path: '/v1/auth/logout',
    operationId: 'signOut',
    tag: 'Sign-in',
    summary: 'Sign out',
    description: 'Invalidates the session and clears its cookie; 200 also without a valid session.',
    security: [['sessionCookie'], []],
    responses: {
      200: { description: 'Signed out.', body: named('LogoutResult', logoutResponseSchema), headers: { 'Set-Cookie': 'The cleared session cookie.' } },
      403: error('`csrf_rejected`: a live session ended from another origin.'),
    },
  },
  {
    method: 'get',
    path: '/metrics',
    operationId: 'getMetrics',
    tag: 'Operations',
    summary: 'Prometheus metrics',
    description:
      "This process's series (HTTP durations, simulations, limit rejections, default process metrics), the queue's job counts and the worker pools' gauges. Demands `METRICS_TOKEN` as a Bearer token when that is set.",
    security: [['metricsToken'], []],
    responses: {
      200: { description: 'The Prometheus text exposition format.', text: 'text/plain; version=0.0.4; charset=utf-8' },
      401: error('`authentication_required` or `invalid_credentials`: METRICS_TOKEN is set and was not sent.'),
    },
  },
];

/**
 * Routes the routers serve that are not part of the HTTP API, each with why: web pages and their assets,
 * this description itself, and the operators' dashboard (a UI of its own, with its own internal API).
 */
export const UNDOCUMENTED_ROUTES: Readonly<Record<string, string>> = {
  'GET /': 'the landing page (HTML)',
  'GET /account': 'the web console (HTML)',
  'GET /assets/{version}/{path}': "the web pages' assets",
  'GET /docs': 'this reference, rendered (HTML)',
  'GET /docs/{asset}': "the reference page's assets",
  'GET /openapi.json': 'this document',
  'ALL /admin/queues': 'the queue dashboard (bull-board UI), only with ADMIN_TOKEN',
  'ALL /admin/queues/{rest}': "the queue dashboard's pages, assets and internal API",
};
