import { AppError } from './AppError.ts';

// One constructor per documented code (DECISIONS "Errors"), so a code is spelled in exactly one place.

export interface ValidationIssue {
  readonly path: string;
  readonly message: string;
}

const retryHeaders = (seconds: number): Record<string, string> => ({ 'Retry-After': String(seconds) });

export const invalidJson = (): AppError => new AppError(400, 'invalid_json', 'The request body is not valid JSON.');

export const authenticationRequired = (): AppError =>
  new AppError(401, 'authentication_required', 'Authentication is required: send Authorization: Bearer <API key> or sign in.', {
    headers: { 'WWW-Authenticate': 'Bearer realm="api"' },
  });

export const invalidCredentials = (): AppError =>
  new AppError(401, 'invalid_credentials', 'The credentials are invalid, revoked or expired.', {
    headers: { 'WWW-Authenticate': 'Bearer realm="api", error="invalid_token"' },
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

export const notFound = (): AppError => new AppError(404, 'not_found', 'No such resource.');

export const presetNotFound = (preset: string): AppError =>
  new AppError(404, 'preset_not_found', `No preset is named ${JSON.stringify(preset.slice(0, 64))}.`);

export const apiKeyNotFound = (): AppError => new AppError(404, 'api_key_not_found', 'No such API key.');

export const providerNotFound = (): AppError =>
  new AppError(404, 'provider_not_found', 'Unknown identity provider; use github or google.');

export const methodNotAllowed = (allowed: readonly string[]): AppError =>
  new AppError(405, 'method_not_allowed', 'Method not allowed on this path.', {
    headers: { Allow: allowed.join(', ') },
  });

export const presetUnavailable = (preset: string): AppError =>
  new AppError(409, 'preset_unavailable', `The preset ${preset} is currently unavailable.`);

export const payloadTooLarge = (limitBytes: number): AppError =>
  new AppError(413, 'payload_too_large', `The request body exceeds ${limitBytes} bytes.`);

export const unsupportedMediaType = (): AppError =>
  new AppError(415, 'unsupported_media_type', 'Request bodies must be application/json.');

export const validationFailed = (issues: readonly ValidationIssue[]): AppError =>
  new AppError(422, 'validation_failed', 'The request is invalid.', { details: { issues } });

export const rateLimitExceeded = (limit: number, retryAfter: number): AppError =>
  new AppError(429, 'rate_limit_exceeded', `Rate limit of ${limit} requests per minute exceeded; retry in ${retryAfter} s.`, {
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
