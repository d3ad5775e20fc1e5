import { AppError } from './AppError.ts';

// One constructor per documented code (docs/errors.md#every-code), so a code is spelled in exactly one place.

export interface ValidationIssue {
  readonly path: string;
  readonly message: string;
}

const retryHeaders = (seconds: number): Record<string, string> => ({ 'Retry-After': String(seconds) });

/** Bodies over 16 KiB are refused (docs/errors.md#request-bodies); a compressed one's size once inflated. */
export const BODY_LIMIT_BYTES = 16 * 1024;

export const invalidJson = (): AppError => new AppError(400, 'invalid_json', 'The request body is not valid JSON.');

/** Parseable perhaps, but nested past what any endpoint accepts: refused before anything walks it. */
export const jsonTooDeep = (maxDepth: number): AppError =>
  new AppError(400, 'invalid_json', `The request body nests arrays and objects deeper than ${maxDepth} levels.`, { details: { max_depth: maxDepth } });

export const invalidIdempotencyKey = (): AppError =>
  new AppError(400, 'invalid_idempotency_key', 'Idempotency-Key must be 1 to 255 characters of visible ASCII (0x21-0x7E).');

/** HTTP the server cannot parse (docs/errors.md): answered before any route sees it, or by Koa's parser. */
export const malformedRequest = (message = 'The request is not well-formed HTTP/1.1.'): AppError => new AppError(400, 'malformed_request', message);

/** An `Expect` other than `100-continue` (RFC 9110 §10.1.1): nothing else is ever met here. */
export const expectationFailed = (): AppError =>
  new AppError(417, 'expectation_failed', 'The only expectation this service meets is Expect: 100-continue.', { headers: { Connection: 'close' } });

/** The client hung up before its body arrived: nobody reads this answer, and it is not our fault. */
export class ClientAbortedError extends AppError {
  constructor() {
    super(400, 'malformed_request', 'The client closed the connection before sending the whole request.');
    this.name = 'ClientAbortedError';
  }
}

export const requestTimeout = (): AppError => new AppError(408, 'request_timeout', 'The request did not arrive in time.');

export const headersTooLarge = (): AppError =>
  new AppError(431, 'headers_too_large', 'The request headers are too large.');

export const authenticationRequired = (): AppError =>
  new AppError(401, 'authentication_required', 'Authentication is required: send Authorization: Bearer <API key> or sign in.', {
    headers: { 'WWW-Authenticate': 'Bearer realm="api"' },
  });

/** `message` says how a malformed Authorization header must look; the code stays `invalid_credentials`. */
export const invalidCredentials = (message = 'The credentials are invalid, revoked or expired.'): AppError =>
  new AppError(401, 'invalid_credentials', message, {
    headers: { 'WWW-Authenticate': 'Bearer realm="api", error="invalid_token"' },
  });

/** The operator interfaces (/metrics, /admin/queues) open with the operator's token, never a key or a session. */
export const operatorTokenRequired = (challenge: string): AppError =>
  new AppError(401, 'authentication_required', 'This endpoint needs the operator token: send Authorization: Bearer <operator token>.', {
    headers: { 'WWW-Authenticate': challenge },
  });

export const operatorTokenInvalid = (challenge: string): AppError =>
  new AppError(401, 'invalid_credentials', 'The operator token is wrong; API keys and sessions do not open this endpoint.', {
    headers: { 'WWW-Authenticate': challenge },
  });

export const accountDisabled = (): AppError => new AppError(403, 'account_disabled', 'This account is disabled.');

export const csrfRejected = (): AppError =>
  new AppError(403, 'csrf_rejected', "Cross-site request refused: the request's Origin is not this service.");

export const interactionsPerRequestExceeded = (limit: number, requested: number): AppError =>
  new AppError(403, 'interactions_per_request_exceeded', `Your plan allows at most ${limit} interactions per request.`, {
    details: { limit, requested },
  });

export const monthlyRequestQuotaExceeded = (limit: number, used: number, resetsAt: string): AppError =>
  new AppError(403, 'monthly_request_quota_exceeded', `The monthly request quota of ${limit} is used up until ${resetsAt}.`, {
    details: { limit, used, resets_at: resetsAt },
  });

export const monthlyInteractionQuotaExceeded = (limit: number, used: number, requested: number, resetsAt: string): AppError =>
  new AppError(
    403,
    'monthly_interaction_quota_exceeded',
    `The monthly interaction quota of ${limit} would be exceeded (${used} used, ${requested} requested) until ${resetsAt}.`,
    { details: { limit, used, requested, resets_at: resetsAt } },
  );

export const apiKeyLimitReached = (limit: number): AppError =>
  new AppError(403, 'api_key_limit_reached', `Your plan allows at most ${limit} active API keys; revoke one first.`, {
    details: { limit },
  });

/**
 * docs/models.md#the-definition: a definition is at most 64 KiB, the body limit of PUT /v1/models/{name} and of
 * validate.
 */
export const MODEL_BODY_LIMIT_BYTES = 64 * 1024;

export const modelLimitReached = (limit: number): AppError =>
  new AppError(403, 'model_limit_reached', `Your plan allows at most ${limit} models; delete one first, or add a version to an existing one.`, {
    details: { limit },
  });

export const notFound = (): AppError => new AppError(404, 'not_found', 'No such resource.');

export const presetNotFound = (preset: string): AppError =>
  new AppError(404, 'preset_not_found', `No preset is named ${JSON.stringify(preset.slice(0, 64))}.`);

export const modelNotFound = (): AppError => new AppError(404, 'model_not_found', 'No such model (or no such version of it).');

export const apiKeyNotFound = (): AppError => new AppError(404, 'api_key_not_found', 'No such API key.');

export const simulationNotFound = (): AppError => new AppError(404, 'simulation_not_found', 'No such simulation.');

export const providerNotFound = (): AppError =>
  new AppError(404, 'provider_not_found', 'Unknown identity provider; use github or google.');

export const methodNotAllowed = (allowed: readonly string[]): AppError =>
  new AppError(405, 'method_not_allowed', 'Method not allowed on this path.', {
    headers: { Allow: allowed.join(', ') },
  });

export const notAcceptable = (supported: readonly string[]): AppError =>
  new AppError(406, 'not_acceptable', `Accept allows none of the formats this endpoint answers in: ${supported.join(', ')}.`, {
    details: { supported },
  });

export const presetUnavailable = (preset: string): AppError =>
  new AppError(409, 'preset_unavailable', `The preset ${preset} is currently unavailable.`);

export const simulationNotCompleted = (status: string): AppError =>
  new AppError(409, 'simulation_not_completed', `Only a completed simulation's records can be served again; this one is ${status}.`, {
    details: { status },
  });

export const engineVersionRetired = (serviceVersion: string): AppError =>
  new AppError(410, 'engine_version_retired', `The engine version ${serviceVersion} that made this simulation is no longer served.`, {
    details: { service_version: serviceVersion },
  });

export const linkNotFound = (): AppError => new AppError(404, 'link_not_found', 'No such download link.');

export const linkExpired = (): AppError =>
  new AppError(410, 'link_expired', 'This download link has expired, or the key that made it was revoked.');

export const rangeNotSatisfiable = (length: number): AppError =>
  new AppError(416, 'range_not_satisfiable', `The range asks for no byte of this ${length}-byte body.`, {
    details: { length },
    headers: { 'Content-Range': `bytes */${length}` },
  });

export const idempotencyKeyInUse = (): AppError =>
  new AppError(409, 'idempotency_key_in_use', 'A request with this Idempotency-Key is still running; retry in 1 s.', {
    headers: retryHeaders(1),
  });

export const apiKeyNotRollable = (): AppError =>
  new AppError(409, 'api_key_not_rollable', 'This API key is revoked or has already been rolled.');

/** A roll that would leave more working keys (grace periods included) than the plan's limit plus one. */
export const apiKeyRollLimitReached = (limit: number): AppError =>
  new AppError(
    409,
    'api_key_not_rollable',
    `Rolling this key would leave more than ${limit} keys authenticating, counting keys in a roll's grace period; revoke one, or roll with expires_in 0.`,
    { details: { limit } },
  );

export const payloadTooLarge = (limitBytes = BODY_LIMIT_BYTES): AppError =>
  new AppError(413, 'payload_too_large', `The request body exceeds ${limitBytes} bytes.`);

export const unsupportedMediaType = (): AppError =>
  new AppError(415, 'unsupported_media_type', 'Request bodies must be application/json.');

export const unsupportedCharset = (): AppError =>
  new AppError(415, 'unsupported_media_type', 'Request bodies must be application/json in UTF-8 (no charset, or charset=utf-8).');

export const unsupportedContentEncoding = (): AppError =>
  new AppError(415, 'unsupported_media_type', 'Request bodies may be sent as is, or with Content-Encoding gzip or deflate.');

export const validationFailed = (issues: readonly ValidationIssue[]): AppError =>
  new AppError(422, 'validation_failed', 'The request is invalid.', { details: { issues } });

export const idempotencyKeyReused = (): AppError =>
  new AppError(
    422,
    'idempotency_key_reused',
    'This Idempotency-Key was already used with a different method, path, body or Accept; use a new key.',
  );

export const rateLimitExceeded = (limit: number, retryAfter: number): AppError =>
  new AppError(429, 'rate_limit_exceeded', `Rate limit of ${limit} requests per minute exceeded; retry in ${retryAfter} s.`, {
    details: { limit, retry_after: retryAfter },
    headers: retryHeaders(retryAfter),
  });

/** Creating and rolling API keys: a limit per account per hour, apart from the simulations' per minute. */
export const keyChangeRateLimitExceeded = (limit: number, retryAfter: number): AppError =>
  new AppError(429, 'rate_limit_exceeded', `Limit of ${limit} API key creations and rolls per hour exceeded; retry in ${retryAfter} s.`, {
    details: { limit, retry_after: retryAfter },
    headers: retryHeaders(retryAfter),
  });

export const concurrencyLimitExceeded = (limit: number, retryAfter: number): AppError =>
  new AppError(429, 'concurrency_limit_exceeded', `All ${limit} of your concurrent simulation slots are busy; retry in ${retryAfter} s.`, {
    details: { limit, retry_after: retryAfter },
    headers: retryHeaders(retryAfter),
  });

export const internalError = (): AppError => new AppError(500, 'internal_error', 'An unexpected error occurred.');

export const serviceUnavailable = (retryAfter = 5, message = 'A backing service is unavailable; retry shortly.'): AppError =>
  new AppError(503, 'service_unavailable', message, {
    details: { retry_after: retryAfter },
    headers: retryHeaders(retryAfter),
  });

export const simulationTimeout = (timeoutMs: number): AppError =>
  new AppError(504, 'simulation_timeout', `The simulation did not finish within ${timeoutMs} ms.`);

export const streamNotFound = (): AppError => new AppError(404, 'stream_not_found', 'No such stream.');

export const streamConcurrencyLimitExceeded = (limit: number): AppError =>
  new AppError(429, 'concurrency_limit_exceeded', `All ${limit} of your concurrent streams are running; cancel one or wait for one to finish.`, {
    details: { limit, retry_after: 5 },
    headers: retryHeaders(5),
  });
