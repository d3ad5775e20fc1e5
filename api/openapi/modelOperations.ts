import { z } from 'zod';
import {
  modelDefinitionSchema,
  modelDeletedSchema,
  modelListSchema,
  modelSchema,
  modelValidationSchema,
} from '../routes/models/schema.ts';

// The operations of an account's models (docs/models.md#the-http-api), in the shape of
// operations.ts, which lists them with the rest. Kept apart: operations.ts is long enough.

interface ModelResponseSpec {
  readonly description: string;
  readonly body?: { readonly name: string; readonly schema: z.ZodType } | 'error';
  readonly headers?: Readonly<Record<string, string>>;
}

interface ModelOperationSpec {
  readonly method: 'get' | 'put' | 'post' | 'delete';
  readonly path: string;
  readonly operationId: string;
  readonly tag: 'Models';
  readonly summary: string;
  readonly description: string;
  readonly security: readonly (readonly ('apiKey' | 'sessionCookie')[])[];
  readonly parameters?: readonly { name: string; in: 'path'; description: string; schema: z.ZodType; required: boolean }[];
  readonly requestBody?: { readonly name: string; readonly schema: z.ZodType };
  readonly responses: Readonly<Record<number, ModelResponseSpec>>;
}

const error = (description: string, headers?: Record<string, string>): ModelResponseSpec => ({ description, body: 'error', ...(headers ? { headers } : {}) });

const CALLER = [['apiKey'], ['sessionCookie']] as const;
const RETRY_AFTER = { 'Retry-After': 'Seconds to wait before retrying; equals `details.retry_after`.' };
const RATE_LIMIT_FIELDS = {
  'RateLimit-Policy': 'The rate-limit policy, `"rpm";q=<limit>;w=60` (draft-ietf-httpapi-ratelimit-headers).',
  RateLimit: 'The window now, `"rpm";r=<remaining>;t=<seconds until the oldest counted request leaves>`.',
};
const NAME = { name: 'name', in: 'path', required: true, description: 'The model name: `^[a-z][a-z0-9_]{0,39}$`, never a preset name or alias.', schema: z.string() } as const;

const auth = {
  401: error('`authentication_required` without credentials; `invalid_credentials` for an unknown, malformed or revoked key, or a tampered, expired or ended session.', {
    'WWW-Authenticate': 'The Bearer challenge.',
  }),
  403: error('`account_disabled` when the account is deactivated; `csrf_rejected` for a cookie-authenticated write from another origin.'),
} as const;
const definitionBody = {
  400: error('`invalid_json`: the body is not parseable JSON (or not UTF-8, or empty), does not inflate, or nests arrays and objects deeper than 32 levels.'),
  413: error('`payload_too_large`: the definition exceeds 64 KiB (inflated, when sent with `Content-Encoding: gzip` or `deflate`).'),
  415: error('`unsupported_media_type`: a body that is not `application/json`, or a `Content-Encoding` other than gzip or deflate.'),
} as const;
const notFound = error("`model_not_found`: no such model or version of the caller's (unknown, deleted and another account's are the same answer).");

export const MODEL_OPERATIONS: readonly ModelOperationSpec[] = [
  {
    method: 'put',
    path: '/v1/models/{name}',
    operationId: 'putModel',
    tag: 'Models',
    summary: 'Store a model: its first version, or a new one',
    description:
      "The body is the definition (docs/models.md). A new name is created at version 1 (201); a definition different from the name's latest version is stored as the next version (201); one equal to it by value (keys in any order) stores nothing and answers that version (200). A version never changes. Every problem of a definition is reported at once (422 `validation_failed`, one issue per problem with its JSON path). A new name beyond the plan's `max_models` is 403 `model_limit_reached`.",
    security: CALLER,
    parameters: [NAME],
    requestBody: { name: 'ModelDefinition', schema: modelDefinitionSchema },
    responses: {
      200: { description: 'The definition equals the latest version: that version, unchanged.', body: { name: 'Model', schema: modelSchema } },
      201: { description: 'A new model, or a new version of the model.', body: { name: 'Model', schema: modelSchema } },
      ...definitionBody,
      ...auth,
      403: error("`model_limit_reached` (`limit`): a new name beyond the plan's `max_models`; `account_disabled`; `csrf_rejected`."),
      422: error('`validation_failed`: the name, or every problem of the definition, each in `details.issues` as `{path, message}` (`path` a JSON path into the definition; an expression\'s message names the character position).'),
    },
  },
  {
    method: 'get',
    path: '/v1/models',
    operationId: 'listModels',
    tag: 'Models',
    summary: "List the caller's models",
    description: 'The latest version of each live model of the account, newest first, as summaries.',
    security: CALLER,
    responses: { 200: { description: 'The models.', body: { name: 'ModelList', schema: modelListSchema } }, ...auth },
  },
  {
    method: 'get',
    path: '/v1/models/{name}',
    operationId: 'getModel',
    tag: 'Models',
    summary: "A model's latest version",
    description: "The Model: its definition, warnings and catalog (the Preset resource's fields for it).",
    security: CALLER,
    parameters: [NAME],
    responses: { 200: { description: 'The latest version.', body: { name: 'Model', schema: modelSchema } }, ...auth, 404: notFound },
  },
  {
    method: 'get',
    path: '/v1/models/{name}/versions/{version}',
    operationId: 'getModelVersion',
    tag: 'Models',
    summary: 'One version of a model',
    description: 'A version never changes: the same answer as when it was stored.',
    security: CALLER,
    parameters: [NAME, { name: 'version', in: 'path', required: true, description: 'The version: 1, 2, …', schema: z.string().regex(/^[1-9][0-9]*$/) }],
    responses: { 200: { description: 'The version.', body: { name: 'Model', schema: modelSchema } }, ...auth, 404: notFound },
  },
  {
    method: 'delete',
    path: '/v1/models/{name}',
    operationId: 'deleteModel',
    tag: 'Models',
    summary: 'Delete a model',
    description:
      'Every version of the name: new runs of it are 404 `model_not_found`, and it no longer counts against `max_models`. Runs already made keep their history, and their replays (GET /v1/simulations/{simulation_id}/records, download links, idempotent retries) run the recorded version. Storing the name again continues its version numbers.',
    security: CALLER,
    parameters: [NAME],
    responses: { 200: { description: 'Deleted.', body: { name: 'ModelDeleted', schema: modelDeletedSchema } }, ...auth, 404: notFound },
  },
  {
    method: 'post',
    path: '/v1/models/validate',
    operationId: 'validateModel',
    tag: 'Models',
    summary: 'Check a definition without storing it',
    description:
      'Answers 200 whether the definition is valid or not: `valid`, every problem in `issues`, `warnings`, and for a valid one a `sample` (the first 20 records of seed 1 with the default profile, and over 10,000 records per state the share of records and per number field mean, min, max and nulls). Counts in the rate window like a simulation (429 beyond it), against no quota.',
    security: CALLER,
    requestBody: { name: 'ModelDefinition', schema: modelDefinitionSchema },
    responses: {
      200: { description: 'The verdict.', body: { name: 'ModelValidation', schema: modelValidationSchema }, headers: RATE_LIMIT_FIELDS },
      ...definitionBody,
      ...auth,
      429: error('`rate_limit_exceeded` (`limit`, `retry_after`): the plan\'s requests per minute, shared with simulations.', { ...RETRY_AFTER, ...RATE_LIMIT_FIELDS }),
    },
  },
];
