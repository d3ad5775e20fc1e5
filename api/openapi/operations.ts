import { z } from 'zod';
import { accountResponseSchema } from '../routes/account/schema.ts';
import {
  apiKeyCreatedSchema,
  apiKeyListSchema,
  apiKeyReplayedSchema,
  apiKeyRevokedSchema,
  apiKeyRolledSchema,
  createApiKeyBodySchema,
  rollApiKeyRequestSchema,
} from '../routes/apiKeys/schema.ts';
import { logoutResponseSchema, providerSchema, signInProvidersResponseSchema } from '../routes/auth/schema.ts';
import { healthResponseSchema, readinessResponseSchema } from '../routes/health/schema.ts';
import { presetFidelityQuerySchema, presetFidelitySchema, presetListSchema, presetSchema } from '../routes/presets/schema.ts';
import { listSimulationsQuerySchema, runListSchema, runSchema } from '../routes/simulations/historySchema.ts';
import { simulationRequestSchema, simulationResultSchema } from '../routes/simulations/schema.ts';
import { datasetQuerySchema } from '../routes/simulations/datasetSchema.ts';
import { createLinkBodySchema, linkCreatedSchema } from '../routes/downloads/schema.ts';
import { planListSchema } from '../routes/plans/schema.ts';
import { dailyUsageQuerySchema, dailyUsageResponseSchema } from '../routes/usage/dailyUsageSchema.ts';
import { usageResponseSchema } from '../routes/usage/schema.ts';
import { PRESETS } from '../../shared/engine/index.ts';
import { createStreamSchema, listStreamsQuerySchema, streamSchema } from '../routes/streams/schema.ts';
import { MODEL_OPERATIONS } from './modelOperations.ts';

const PRESET_PARAMETER = `A preset name (${PRESETS.map((p) => `\`${p.name}\``).join(', ')}) or an alias (${PRESETS.flatMap((p) => p.aliases.map((a) => `\`${a}\``)).join(', ')}).`;

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
  /** A binary body, by media type (a dataset's zip archive). */
  readonly binary?: string;
  /** Further media types of the same answer, chosen by Accept, with what each holds. */
  readonly alternatives?: Readonly<Record<string, string>>;
  /** Response headers beyond X-Request-ID, by name: their descriptions. */
  readonly headers?: Readonly<Record<string, string>>;
}

interface ParameterSpec {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header';
  readonly description: string;
  readonly schema: z.ZodType;
  readonly required: boolean;
}

type SecurityName = 'apiKey' | 'sessionCookie' | 'metricsToken';

export interface OperationSpec {
  readonly method: 'get' | 'put' | 'post' | 'delete';
  /** OpenAPI path template: `/v1/api-keys/{key_id}`. */
  readonly path: string;
  readonly operationId: string;
  readonly tag: 'Probes' | 'Catalog' | 'Simulations' | 'Models' | 'Streams' | 'Account' | 'API keys' | 'Sign-in' | 'Operations';
  readonly summary: string;
  /** Every operation has one (Spectral's `operation-description`). */
  readonly description: string;
  /** Alternatives, any one of which suffices; absent for public operations (`security: []`). */
  readonly security?: readonly (readonly SecurityName[])[];
  readonly parameters?: readonly ParameterSpec[];
  readonly requestBody?: NamedSchema;
  /** Whether the request body may be left out. */
  readonly requestBodyOptional?: boolean;
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
  400: error('`invalid_json`: the body is not parseable JSON (or not UTF-8, or empty), does not inflate, or nests arrays and objects deeper than 32 levels.'),
  413: error('`payload_too_large`: the body exceeds 16 KiB (inflated, when sent with `Content-Encoding: gzip` or `deflate`).'),
  415: error('`unsupported_media_type`: a body that is not `application/json` or declares a charset other than UTF-8, or a `Content-Encoding` other than gzip or deflate.'),
  422: error('`validation_failed`: the body fails the schema; `details.issues` lists `{path, message}` per problem, unknown fields included.'),
} as const;

const IDEMPOTENCY_KEY: ParameterSpec = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    "Makes a retry safe: 1–255 characters of visible ASCII, scoped to the account and kept 24 h. The same key with the same method, path, body (compared by value) and `Accept` answers the first 2xx response again with `Idempotent-Replayed: true`; a first attempt that failed keeps nothing. A replayed simulation counts in the rate window and takes a concurrency slot while it streams (429 as for a new run), is refused beyond the account's current per-request maximum (403), and costs no monthly quota; a replayed key creation creates nothing and costs nothing.",
  schema: z.string().min(1).max(255).regex(/^[\x21-\x7e]+$/),
};
/** The result's other media types, besides JSON (POST /v1/simulations and a history replay alike). */
const SIMULATION_ALTERNATIVES = {
  'application/x-ndjson': 'One record per line, each the same JSON object as in `data`, in order, `\\n` after every line.',
  'text/csv; charset=utf-8':
    "RFC 4180 CSV: a header row of the preset's `record_fields` names in catalog order, then one CRLF-ended row per record, numbers printed as in the JSON.",
  'application/vnd.apache.parquet':
    "An Apache Parquet file (binary): one column per `record_fields` entry in catalog order (integer fields INT64, number fields DOUBLE holding the JSON number's value, strings UTF-8; a field that can be null is an optional column), row groups of at most 65,536 rows streamed as they are made. Key-value metadata `bss.preset`, `bss.profile`, `bss.seed`, `bss.num_interactions`, `bss.engine_version`.",
};
/** The run's identity, in every format. */
const SIMULATION_HEADERS = {
  'Simulation-Id': "The run's simulation_id.",
  'Simulation-Preset': "The canonical preset name, or the model's name for a model run.",
  'Simulation-Model': 'A model run only: the model version, `name@version`.',
  'Simulation-Profile': 'The profile used.',
  'Simulation-Seed': 'The seed used (drawn when the request gave none).',
  'Simulation-Engine-Version': "The engine's service_version.",
};
/** What a resumable answer of a completed run's records carries (a history replay and a download link). */
const RESUMABLE_HEADERS = {
  'Accept-Ranges': 'Always `bytes`.',
  ETag: 'A strong tag of this body: the same run, format and coding always give the same tag and the same bytes.',
  'Content-Encoding': '`gzip`, `br` or `zstd` when `Accept-Encoding` asked for one (JSON, NDJSON and CSV only; Parquet is never coded).',
  Vary: 'Always `Accept, Accept-Encoding`.',
};
const RANGE_PARAMETERS: readonly ParameterSpec[] = [
  {
    name: 'Range',
    in: 'header',
    required: false,
    description: 'One byte range of the body in the coding answered: `bytes=N-`, `bytes=N-M` or `bytes=-S` (the last S bytes). Several ranges, or another unit, are ignored (200 whole).',
    schema: z.string(),
  },
  {
    name: 'If-Range',
    in: 'header',
    required: false,
    description: 'The ETag of the body a download began with: the range is served only while the tag matches, else the whole body (200).',
    schema: z.string(),
  },
  {
    name: 'Accept-Encoding',
    in: 'header',
    required: false,
    description: '`gzip`, `br` and `zstd` are honoured for JSON, NDJSON and CSV, with quality values; identity otherwise.',
    schema: z.string(),
  },
];
const RESUMABLE_RESPONSES = {
  206: {
    description: 'The byte range `Range` asked for, byte-identical to that slice of the whole body, with `Content-Range: bytes N-M/<total>`.',
    // A slice is bytes of the body, not a document: every media type is a string here.
    text: 'application/x-ndjson',
    alternatives: { ...SIMULATION_ALTERNATIVES, 'application/json; charset=utf-8': 'A slice of the Simulation result as JSON text.' },
    headers: { ...RATE_LIMIT_FIELDS, ...SIMULATION_HEADERS, ...RESUMABLE_HEADERS, 'Content-Range': '`bytes N-M/<total>`.' },
  },
  416: error('`range_not_satisfiable`: the range asks for no byte of the body (`details.length`); `Content-Range: bytes */<total>`.', { 'Content-Range': '`bytes */<total>`.' }),
} as const;
const REPLAYED = { 'Idempotent-Replayed': '`true` when this is the first response to an earlier request with the same Idempotency-Key, answered again.' };
const idempotencyFailures = {
  409: error('`idempotency_key_in_use`: a request with this Idempotency-Key is still running; retry after `Retry-After` (1 s).', { 'Retry-After': 'Always 1.' }),
  422: error('`validation_failed` for a body that fails the schema (`details.issues`); `idempotency_key_reused` for an Idempotency-Key used before with a different method, path, body or `Accept`.'),
} as const;
const invalidIdempotencyKey = '`invalid_idempotency_key`: Idempotency-Key is not 1–255 characters of visible ASCII; ';

const unavailable = error('`service_unavailable`: PostgreSQL or Redis cannot be reached; retry after `details.retry_after` seconds.', RETRY_AFTER);

/**
 * Every documented operation, its schemas imported from the route modules' schema.ts, which the routes
 * validate and present with: the document and the behaviour have one source. test/ops/openapi.test.ts
 * checks this list against the routers in both directions.
 */
const STREAM = named('Stream', streamSchema);

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
    description:
      'Every preset the service serves, with its profiles, record fields and whether it is available now. Public: no credentials.',
    responses: { 200: { description: 'Every preset.', body: named('PresetList', presetListSchema) } },
  },
  {
    method: 'get',
    path: '/v1/presets/{preset}',
    operationId: 'getPreset',
    tag: 'Catalog',
    summary: 'One preset',
    description:
      'One preset by name (or the alias `mobile`), with its profiles, record fields and availability. Public: no credentials.',
    parameters: [
      {
        name: 'preset',
        in: 'path',
        required: true,
        description: PRESET_PARAMETER,
        schema: presetSchema.shape.name,
      },
    ],
    responses: {
      200: { description: 'The preset (the canonical one for an alias).', body: named('Preset', presetSchema) },
      404: error('`preset_not_found`: no preset has that name.'),
    },
  },
  {
    method: 'get',
    path: '/v1/presets/{preset}/fidelity',
    operationId: 'getPresetFidelity',
    tag: 'Catalog',
    summary: "The preset's stylized facts, measured",
    description:
      "The facts a domain expert expects of the preset's data (heavy tails and volatility clustering in finance, log-normal response times in education, bounded autocorrelated vitals in healthcare, heavy-tailed sessions and zero-inflated revenue in mobile_app), each with its target, the value measured on fixed-seed samples of at least 100,000 interactions per profile of an engine version (the newest unless `engine_version` names another kept one), and whether it holds. Engine 3 adds calibrated facts (long-memory volatility, the leverage curve, chronic adherence) and one fact per scenario event type, measured on matched pairs. Measured once per engine version, not per request.",
    parameters: [
      {
        name: 'preset',
        in: 'path',
        required: true,
        description: PRESET_PARAMETER,
        schema: presetSchema.shape.name,
      },
      {
        name: 'engine_version',
        in: 'query',
        required: false,
        description: 'The engine whose report to serve: a major ("2") or an exact version of the preset\'s `engine_versions`; the newest when absent.',
        schema: presetFidelityQuerySchema.shape.engine_version,
      },
    ],
    responses: {
      200: { description: 'The fidelity report (of the canonical preset for an alias).', body: named('PresetFidelity', presetFidelitySchema) },
      404: error('`preset_not_found`: no preset has that name.'),
      422: error('`validation_failed`: `engine_version` names no engine the preset has, or the query has an unknown parameter.'),
    },
  },
  {
    method: 'post',
    path: '/v1/simulations',
    operationId: 'runSimulation',
    tag: 'Simulations',
    summary: 'Run a simulation',
    description:
      'Checks, in order: authentication (401/403), the response format from `Accept` (406, not counted by the rate limiter), the rate limit (429), the body (400/413/415/422), the per-request maximum, the monthly request and interaction quotas (403), a concurrency slot (429); then runs the simulation. Answers past authentication carry `RateLimit-Policy` and `RateLimit`. The result is JSON (absent `Accept`, `*/*` or `application/json`), NDJSON (`application/x-ndjson`), CSV (`text/csv`) or Parquet (`application/vnd.apache.parquet`), quality values honoured; every format holds the same records and is streamed as it is made. From engine 3 a `scenario` of 1–16 events may be given (422 `validation_failed` with an engine before 3, an event type the preset does not have, or a bound crossed); the JSON result echoes it, and engine-3 records end with `scenario_event`. A run that fails after its first bytes were sent ends the connection without the terminating chunk, so a partial body never looks whole. Instead of `preset`, `model` runs one of the account\'s models (`name`, its latest version, or `name@version`; exactly one of the two, else 422): on engine 3 or later (1 or 2 is 422), with the model\'s profiles and scenario event types; the result\'s `preset` is the model\'s name and `model` its version (null for a preset run). An unknown, deleted or another account\'s model is 404 `model_not_found`, counted in the rate window.',
    security: CALLER,
    parameters: [IDEMPOTENCY_KEY],
    requestBody: named('SimulationRequest', simulationRequestSchema),
    responses: {
      200: {
        description: 'The Simulation result, in the format `Accept` chose (an idempotent replay regenerates the same `simulation_id`, `seed` and `data` in the recorded format; `metadata` may differ only in `compute_ms`).',
        body: named('SimulationResult', simulationResultSchema),
        alternatives: SIMULATION_ALTERNATIVES,
        headers: { ...RATE_LIMIT_FIELDS, ...SIMULATION_HEADERS, ...REPLAYED },
      },
      ...bodyFailures,
      400: error(`${invalidIdempotencyKey}\`invalid_json\`: the body is not parseable JSON (or not UTF-8), or nests arrays and objects deeper than 32 levels.`),
      422: idempotencyFailures[422],
      401: authFailures[401],
      406: error('`not_acceptable`: `Accept` allows none of the formats; `supported` lists them.'),
      404: error("`model_not_found`: `model` names no live model (or version) of the caller's.", RATE_LIMIT_FIELDS),
      403: error(
        '`account_disabled`, `csrf_rejected`, `interactions_per_request_exceeded` (`limit`, `requested`; an idempotent replay too, against the current plan), `monthly_request_quota_exceeded` (`limit`, `used`, `resets_at`) or `monthly_interaction_quota_exceeded` (`limit`, `used`, `requested`, `resets_at`).',
        RATE_LIMIT_FIELDS,
      ),
      409: error('`preset_unavailable`: the preset is currently unavailable; `idempotency_key_in_use` (with `Retry-After: 1`) while the first request with this Idempotency-Key runs.', {
        'Retry-After': 'With `idempotency_key_in_use`: 1.',
      }),
      429: error('`rate_limit_exceeded` or `concurrency_limit_exceeded`, with `limit` and `retry_after`; an idempotent replay is limited the same way.', { ...RETRY_AFTER, ...RATE_LIMIT_FIELDS }),
      500: error('`internal_error`: the run failed unexpectedly; it costs no quota.'),
      503: unavailable,
      504: error('`simulation_timeout`: the run did not finish within the deadline (default 30 s); it costs no quota.'),
    },
  },
  {
    method: 'get',
    path: '/v1/simulations',
    operationId: 'listSimulations',
    tag: 'Simulations',
    summary: "The caller's runs, newest first",
    description:
      "One page of the account's run history (all its keys and sessions), newest first. Pages are stable while new runs are made: following `next_cursor` to the end lists every earlier run exactly once.",
    security: CALLER,
    parameters: [
      { name: 'limit', in: 'query', required: false, description: 'Runs per page, 1–100; default 20.', schema: listSimulationsQuerySchema.shape.limit },
      { name: 'cursor', in: 'query', required: false, description: "The previous page's `next_cursor`, as it is (opaque).", schema: listSimulationsQuerySchema.shape.cursor },
      { name: 'preset', in: 'query', required: false, description: 'Only runs of this preset: a name or the alias `mobile`.', schema: listSimulationsQuerySchema.shape.preset },
      {
        name: 'status',
        in: 'query',
        required: false,
        description: 'Only runs in this status: `queued`, `completed`, `failed` (a fault of the service), `timed_out`, or `cancelled` (the client left or stopped reading).',
        schema: listSimulationsQuerySchema.shape.status,
      },
    ],
    responses: {
      200: { description: 'A page of runs.', body: named('RunList', runListSchema) },
      ...authFailures,
      422: error('`validation_failed`: a `limit` out of 1–100, a malformed `cursor`, an unknown `preset` or `status`, or an unknown parameter; `details.issues` names it.'),
    },
  },
  {
    method: 'get',
    path: '/v1/simulations/{simulation_id}',
    operationId: 'getSimulation',
    tag: 'Simulations',
    summary: 'One run of the caller',
    description:
      "A run of the caller's account by its `simulation_id`: its inputs, status, engine version, timing and the credential that made it. A run is found from the instant it is admitted (status `queued`), through its settling, to its row in the history.",
    security: CALLER,
    parameters: [{ name: 'simulation_id', in: 'path', required: true, description: 'The `simulation_id` of a run.', schema: runSchema.shape.simulation_id }],
    responses: {
      200: { description: 'The run.', body: named('Run', runSchema) },
      ...authFailures,
      404: error("`simulation_not_found`: unknown, malformed, or another account's id (indistinguishable)."),
    },
  },
  {
    method: 'get',
    path: '/v1/simulations/{simulation_id}/records',
    operationId: 'replaySimulation',
    tag: 'Simulations',
    summary: "A completed run's records, again",
    description:
      "Runs the recorded inputs again (its `scenario` included) on the run's recorded engine `service_version`, through the same queue and workers: the same records, byte for byte, under the same `simulation_id` (only `metadata.compute_ms` is measured anew). Passes the rate limiter and takes a concurrency slot while it streams, like a new run, but counts against no monthly quota and adds nothing to the history. Checks, in order: authentication, the response format from `Accept` (406, not counted), the rate limit, the run (404, 409, 410), the account's current per-request maximum (403), a concurrency slot. Any format of `POST /v1/simulations` (JSON, NDJSON, CSV, Parquet), streamed the same way, with the same `Simulation-*` headers (`Simulation-Id` is the recorded run's). Resumable: `Accept-Ranges: bytes`, a strong `ETag`, `Range` (206) guarded by `If-Range`, 416 past the end; `HEAD` answers the length (learnt from a streamed run's first answer, or by running the engine once per run, format and coding, shared by the requests that wait on it, then never again; a `HEAD` whose length cannot be learnt in time answers without `Content-Length`, never 5xx). A ranged replay counts like any replay. JSON states the recorded `metadata.compute_ms`, so every replay is the first answer byte for byte.",
    security: CALLER,
    parameters: [{ name: 'simulation_id', in: 'path', required: true, description: 'The `simulation_id` of a completed run.', schema: runSchema.shape.simulation_id }, ...RANGE_PARAMETERS],
    responses: {
      200: {
        description: 'The Simulation result, as the run first answered, in the format `Accept` chose.',
        body: named('SimulationResult', simulationResultSchema),
        alternatives: SIMULATION_ALTERNATIVES,
        headers: { ...RATE_LIMIT_FIELDS, ...SIMULATION_HEADERS, ...RESUMABLE_HEADERS },
      },
      ...RESUMABLE_RESPONSES,
      ...authFailures,
      406: error('`not_acceptable`: `Accept` allows none of the formats; `supported` lists them.'),
      404: error("`simulation_not_found`: unknown, malformed, or another account's id (indistinguishable).", RATE_LIMIT_FIELDS),
      403: error('`interactions_per_request_exceeded` (`limit`, `requested`): the run is larger than the account\'s current `max_interactions_per_request`; `account_disabled`.', RATE_LIMIT_FIELDS),
      409: error('`simulation_not_completed`: the run is queued, failed, timed out or cancelled (`details.status`); `preset_unavailable`: its preset is out of service.', RATE_LIMIT_FIELDS),
      410: error("`engine_version_retired`: the engine major that made the run was removed (`details.service_version`).", RATE_LIMIT_FIELDS),
      429: error('`rate_limit_exceeded` or `concurrency_limit_exceeded`, with `limit` and `retry_after`.', { ...RETRY_AFTER, ...RATE_LIMIT_FIELDS }),
      500: error('`internal_error`: the run failed unexpectedly.'),
      503: unavailable,
      504: error('`simulation_timeout`: the run did not finish within the deadline (default 30 s).'),
    },
  },
  {
    method: 'get',
    path: '/v1/simulations/{simulation_id}/dataset',
    operationId: 'getSimulationDataset',
    tag: 'Simulations',
    summary: 'A completed scenario run as a labelled benchmark dataset',
    description:
      "A zip archive, streamed as it is made, that anomaly and change-detection benchmarks load: one CSV per sequence and the labels of every scenario event (docs/datasets.md). `timeeval`: `test/<sequence_id>.csv` (`timestamp,value-0,…,is_anomaly,anomaly_type`: every numeric field a value column, `is_anomaly` 1 inside an event's window, `anomaly_type` its type), `train/<sequence_id>.csv` (the same sequence in the run without the scenario, its matched counterfactual, `is_anomaly` all 0) and `datasets.json` (TimeEval's custom-datasets registry). `nab`: `data/<sequence_id>.csv` (`timestamp,value`), `labels/combined_labels.json` (each event's first timestamp) and `labels/combined_windows.json` (each event's `[start, end]`). Both end with `manifest.json`: the run's inputs and engine, `placed` and `unplaced`, per file its sequence, rows and anomaly count, and the field-to-column map. Labels are the records' own `scenario_event`; a window is a maximal run of one sequence's records with the same label. Timestamps are the records' `event_time` (engine 4; the record's step within its sequence before). Runs the recorded inputs again (twice for `timeeval`, and once more per group of sequences for a time-ordered run, `order` `time`) like `GET /v1/simulations/{simulation_id}/records`: passes the rate limiter and takes a concurrency slot while it streams, counts against no monthly quota. Checks, in order: authentication, the query (422, not counted), the rate limit, the run (404, 409, 410, 422), the account's current per-request maximum (403), a concurrency slot.",
    security: CALLER,
    parameters: [
      { name: 'simulation_id', in: 'path', required: true, description: 'The `simulation_id` of a completed run with a scenario.', schema: runSchema.shape.simulation_id },
      { name: 'layout', in: 'query', required: true, description: '`timeeval` or `nab`.', schema: datasetQuerySchema.shape.layout },
      { name: 'field', in: 'query', required: false, description: "`nab` only: the numeric record field of NAB's `value` column; the preset's first numeric field when absent.", schema: datasetQuerySchema.shape.field },
    ],
    responses: {
      200: {
        description: 'The archive (`application/zip`).',
        binary: 'application/zip',
        headers: { ...RATE_LIMIT_FIELDS, 'Content-Disposition': '`attachment; filename="<simulation_id>-<layout>.zip"`.' },
      },
      ...authFailures,
      404: error("`simulation_not_found`: unknown, malformed, or another account's id (indistinguishable).", RATE_LIMIT_FIELDS),
      403: error("`interactions_per_request_exceeded` (`limit`, `requested`): the run is larger than the account's current `max_interactions_per_request`; `account_disabled`.", RATE_LIMIT_FIELDS),
      409: error('`simulation_not_completed`: the run is queued, failed, timed out or cancelled (`details.status`); `preset_unavailable`: its preset is out of service.', RATE_LIMIT_FIELDS),
      410: error('`engine_version_retired`: the engine major that made the run was removed (`details.service_version`).', RATE_LIMIT_FIELDS),
      422: error('`validation_failed`: a missing or unknown `layout`, a `field` that is not a numeric field of the preset (or given with `timeeval`), an unknown parameter, or a run without a scenario (`simulation_id`); `details.issues` names it.'),
      429: error('`rate_limit_exceeded` or `concurrency_limit_exceeded`, with `limit` and `retry_after`.', { ...RETRY_AFTER, ...RATE_LIMIT_FIELDS }),
      503: unavailable,
    },
  },
  {
    method: 'post',
    path: '/v1/simulations/{simulation_id}/links',
    operationId: 'createDownloadLink',
    tag: 'Simulations',
    summary: "A download link for a completed run's records",
    description:
      "Makes an unguessable URL under `/v1/downloads/` that serves the run's records in `format` with no credentials (for pandas, DuckDB, curl, a browser) until `expires_at`. The link ends early when the API key that made it is revoked (or rolled past its grace period) or the account is deactivated. Downloads through it count in the owner's rate window and take a concurrency slot, like a replay.",
    security: CALLER,
    parameters: [{ name: 'simulation_id', in: 'path', required: true, description: 'The `simulation_id` of a completed run.', schema: runSchema.shape.simulation_id }],
    requestBody: named('DownloadLinkRequest', createLinkBodySchema),
    responses: {
      201: { description: 'The link.', body: named('DownloadLink', linkCreatedSchema) },
      ...bodyFailures,
      ...authFailures,
      403: error(
        "`interactions_per_request_exceeded` (`limit`, `requested`): the run is larger than the account's current `max_interactions_per_request`, as every download through the link would answer; `account_disabled`; `csrf_rejected`.",
      ),
      404: error("`simulation_not_found`: unknown, malformed, or another account's id (indistinguishable)."),
      409: error('`simulation_not_completed`: the run is queued, failed, timed out or cancelled (`details.status`).'),
    },
  },
  {
    method: 'get',
    path: '/v1/downloads/{token}',
    operationId: 'downloadRecords',
    tag: 'Simulations',
    summary: "A completed run's records through a download link",
    description:
      "No credentials: the token is the authority. The run's records in the link's format (whatever `Accept` says), resumable exactly as `GET /v1/simulations/{simulation_id}/records` (`Range`, `If-Range`, `ETag`, 206, 416, `HEAD`) and coded per `Accept-Encoding`, with `Content-Disposition: attachment`. Counted in the link owner's rate window and concurrency (429 with `Retry-After`).",
    parameters: [{ name: 'token', in: 'path', required: true, description: 'The token of a link made by `POST /v1/simulations/{simulation_id}/links`.', schema: z.string() }, ...RANGE_PARAMETERS],
    responses: {
      200: {
        description: "The run's records in the link's format.",
        body: named('SimulationResult', simulationResultSchema),
        alternatives: SIMULATION_ALTERNATIVES,
        headers: { ...RATE_LIMIT_FIELDS, ...SIMULATION_HEADERS, ...RESUMABLE_HEADERS, 'Content-Disposition': '`attachment; filename="<simulation_id>.<format>"`.' },
      },
      ...RESUMABLE_RESPONSES,
      404: error('`link_not_found`: no link has this token (forged, mistyped, or never made).'),
      409: error('`preset_unavailable`: the run\'s preset is out of service.', RATE_LIMIT_FIELDS),
      410: error('`link_expired`: the link is past its `expires_at`, the key that made it was revoked, or its account was deactivated.'),
      403: error("`interactions_per_request_exceeded`: the run is larger than the owner's current per-request maximum.", RATE_LIMIT_FIELDS),
      429: error("`rate_limit_exceeded` or `concurrency_limit_exceeded` of the link's owner, with `limit` and `retry_after`.", { ...RETRY_AFTER, ...RATE_LIMIT_FIELDS }),
      500: error('`internal_error`: the run failed unexpectedly.'),
      503: unavailable,
      504: error('`simulation_timeout`: the run did not finish within the deadline (default 30 s).'),
    },
  },
  {
    method: 'get',
    path: '/v1/account',
    operationId: 'getAccount',
    tag: 'Account',
    summary: "The caller's account",
    description:
      "The account the credential belongs to: its id, e-mail, plan and when it was created.",
    security: CALLER,
    responses: { 200: { description: 'The account.', body: named('Account', accountResponseSchema) }, ...authFailures },
  },
  {
    method: 'get',
    path: '/v1/usage',
    operationId: 'getUsage',
    tag: 'Account',
    summary: "The caller's plan, usage and remaining quota this month",
    description:
      "The plan's limits, the requests and interactions used this calendar month (UTC), what remains, and when the month resets.",
    security: CALLER,
    responses: { 200: { description: 'Usage and quota of the current calendar month (UTC).', body: named('Usage', usageResponseSchema) }, ...authFailures },
  },
  {
    method: 'get',
    path: '/v1/usage/daily',
    operationId: 'getDailyUsage',
    tag: 'Account',
    summary: "The caller's usage by day and by credential, split by how runs ended",
    description:
      "A calendar month (UTC) of the account's runs: per day (`days`, every day up to today, zeros included) and per credential (`credentials`: each API key and the browser sessions), each with the runs in every status apart (`by_status`: completed, cancelled, failed, timed out, queued). `requests` and `interactions` are what counts against the monthly quota, as `GET /v1/usage` counts it, so the current month's `totals` (unfiltered) equal its `usage`. `credential` narrows `days` and `totals` to one credential; `credentials` always lists every one.",
    security: CALLER,
    parameters: [
      { name: 'period', in: 'query', required: false, description: 'The month as `YYYY-MM` (from 2000-01, not after the current one); default the current month.', schema: dailyUsageQuerySchema.shape.period },
      { name: 'credential', in: 'query', required: false, description: '`session`, or the id of one of the caller\'s API keys: only its runs count in `days` and `totals` (a key id of no run of the caller counts nothing).', schema: dailyUsageQuerySchema.shape.credential },
    ],
    responses: {
      200: { description: 'The usage of the month.', body: named('DailyUsage', dailyUsageResponseSchema) },
      ...authFailures,
      422: error('`validation_failed`: a malformed or future `period`, a `credential` that is neither `session` nor a UUID, or an unknown parameter; `details.issues` names it.'),
    },
  },
  {
    method: 'get',
    path: '/v1/plans',
    operationId: 'listPlans',
    tag: 'Catalog',
    summary: 'List the plans and their limits',
    description:
      "Every plan of this service with its limits, smallest first (the caller's own plan is `plan` of `GET /v1/account`). Plans are set per account by the service's operator (`npm run --silent admin -- set-plan --email E --plan P`); a change applies from the account's next request.",
    responses: { 200: { description: 'Every plan.', body: named('PlanList', planListSchema) } },
  },
  {
    method: 'get',
    path: '/v1/api-keys',
    operationId: 'listApiKeys',
    tag: 'API keys',
    summary: "List the caller's API keys, active and revoked",
    description:
      "Every API key of the account, newest first, with its prefix, name, creation, last use, expiry and revocation; never a secret.",
    security: CALLER,
    responses: { 200: { description: 'Metadata only; secrets are never shown again.', body: named('ApiKeyList', apiKeyListSchema) }, ...authFailures },
  },
  {
    method: 'post',
    path: '/v1/api-keys',
    operationId: 'createApiKey',
    tag: 'API keys',
    summary: 'Create an API key',
    description:
      'The raw key is in this response only. A replay under the same Idempotency-Key answers 201 with the created form without `key` (`ApiKeyReplayed`) and `Idempotent-Replayed: true`.',
    security: CALLER,
    parameters: [IDEMPOTENCY_KEY],
    requestBody: named('CreateApiKeyRequest', createApiKeyBodySchema),
    responses: {
      201: {
        description: 'The created key, with its secret; on a replay, the same without `key`.',
        body: named('ApiKeyCreatedOrReplayed', z.union([apiKeyCreatedSchema, apiKeyReplayedSchema])),
        headers: REPLAYED,
      },
      ...bodyFailures,
      ...idempotencyFailures,
      400: error(`${invalidIdempotencyKey}\`invalid_json\`: the body is not parseable JSON (or not UTF-8), or nests arrays and objects deeper than 32 levels.`),
      401: authFailures[401],
      403: error("`api_key_limit_reached` (`limit`) beyond the plan's active keys, or when the limit plus one keys already authenticate (keys in a roll's grace period count); `account_disabled`; `csrf_rejected`."),
      429: error('`rate_limit_exceeded` (`limit` 20, `retry_after`): more than 20 key creations and rolls by the account within an hour; an idempotent replay and a refused body (400, 413, 415, 422) are not counted.', RETRY_AFTER),
    },
  },
  {
    method: 'post',
    path: '/v1/api-keys/{key_id}/roll',
    operationId: 'rollApiKey',
    tag: 'API keys',
    summary: 'Roll an API key: a new key of the same name, the old one working for a grace period',
    description:
      'The previous key keeps authenticating until `previous_key_expires_at` (`expires_in` seconds, default 86400; 0 revokes it at once), then fails like a revoked key. A roll does not count against the active-key limit, but an account holds at most its limit plus one authenticating keys (keys in a grace period count), so a roll with a grace period beyond that is refused; `expires_in: 0` never is. Creations and rolls together are limited to 20 per account per hour.',
    security: CALLER,
    parameters: [{ name: 'key_id', in: 'path', required: true, description: 'The id (UUID) of the key to roll.', schema: apiKeyRevokedSchema.shape.id }],
    requestBody: named('RollApiKeyRequest', rollApiKeyRequestSchema),
    requestBodyOptional: true,
    responses: {
      201: { description: "The new key's created form, with its secret, and when the previous key stops working.", body: named('ApiKeyRolled', apiKeyRolledSchema) },
      ...bodyFailures,
      422: error('`validation_failed`: `expires_in` is not an integer from 0 to 604800, or the body has unknown fields.'),
      ...authFailures,
      404: error("`api_key_not_found`: unknown, malformed, or another account's key id."),
      409: error('`api_key_not_rollable`: the key is revoked or has already been rolled, or the roll would leave more than the plan\'s active-key limit plus one keys authenticating (`limit`).'),
      429: error('`rate_limit_exceeded` (`limit` 20, `retry_after`): more than 20 key creations and rolls by the account within an hour; a refused body (400, 413, 415, 422) is not counted.', RETRY_AFTER),
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
    path: '/v1/auth/providers',
    operationId: 'listSignInProviders',
    tag: 'Sign-in',
    summary: 'The sign-in providers this server offers',
    description:
      'The identity providers configured on this server (the others answer 503 on `GET /v1/auth/{provider}`), for a sign-in page to offer only those; in development, also how to sign in on the local machine.',
    responses: { 200: { description: 'The configured providers.', body: named('SignInProviders', signInProvidersResponseSchema) } },
  },
  {
    method: 'get',
    path: '/v1/auth/{provider}',
    operationId: 'startSignIn',
    tag: 'Sign-in',
    summary: 'Start an OAuth sign-in',
    description:
      "Redirects the browser to the identity provider with a fresh CSRF state (and PKCE challenge). A sign-in started on another host name of the same listener (`127.0.0.1` where `PUBLIC_URL` says `localhost`) is first redirected to the same path on `PUBLIC_URL`, whose host the provider returns to.",
    parameters: [{ name: 'provider', in: 'path', required: true, description: 'The identity provider.', schema: providerSchema }],
    responses: {
      302: { description: "Redirect to the provider's authorize endpoint (or first to the same path on `PUBLIC_URL`).", headers: { Location: "The provider's authorize URL, or this path on `PUBLIC_URL`." } },
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
  {
    method: 'post',
    path: '/v1/streams',
    operationId: 'createStream',
    tag: 'Streams',
    summary: 'Start a live stream',
    description:
      'A time-ordered engine-4 run delivered as it happens (docs/streams.md): event k is due at `created_at + (delivery_time(k) − start_time) / speed`, the delivery time being its `event_time` plus its drawn disorder delay; the records are those `POST /v1/simulations` makes of the same inputs with `order: "time"`. The run is a simulation request\'s: a `preset`, or instead `model`, one of the account\'s models (`name`, its latest version, or `name@version`; exactly one of the two), fixed at creation to that version (`request.model`: its name, version and digest; `request.preset` its name), with its profiles and scenario event types. Reserves one request and `num_interactions` against the monthly quota (given back for what is never delivered); at most the plan\'s `max_concurrent_streams` run at once. With a webhook sink the answer carries `webhook_secret`, once.',
    security: CALLER,
    requestBody: named('StreamRequest', createStreamSchema),
    responses: {
      201: { description: 'The Stream (with `webhook_secret` once, for a webhook sink).', body: named('CreatedStream', streamSchema.extend({ webhook_secret: z.string().optional() })) },
      ...authFailures,
      ...bodyFailures,
      403: error('`interactions_per_request_exceeded`, `monthly_request_quota_exceeded` or `monthly_interaction_quota_exceeded`, as for a simulation.'),
      404: error("`model_not_found`: `model` names no live model (or version) of the caller's."),
      422: error('`validation_failed`: a field out of range, both or neither of `preset` and `model`, an engine before 4, a profile or scenario event type the preset or model does not have, or a webhook URL that resolves to a refused address; `details.issues` names it.'),
      429: error("`rate_limit_exceeded` (creating a stream counts in the rate window like a simulation) or `concurrency_limit_exceeded`: the plan's `max_concurrent_streams` are running; with `limit` and `retry_after`.", { ...RETRY_AFTER, ...RATE_LIMIT_FIELDS }),
    },
  },
  {
    method: 'get',
    path: '/v1/streams',
    operationId: 'listStreams',
    tag: 'Streams',
    summary: "The caller's streams, newest first",
    description: 'Paged like the run history: `limit` streams a page, and `next_cursor` (opaque) for the next one, or null on the last page.',
    security: CALLER,
    parameters: [
      { name: 'limit', in: 'query', required: false, description: 'Streams per page, 1–100 (default 20).', schema: listStreamsQuerySchema.shape.limit },
      { name: 'cursor', in: 'query', required: false, description: "The previous page's `next_cursor`, as it is (opaque).", schema: listStreamsQuerySchema.shape.cursor },
    ],
    responses: {
      200: { description: 'A page of streams.', body: named('StreamList', z.object({ data: z.array(streamSchema), next_cursor: z.string().nullable() })) },
      ...authFailures,
      422: error('`validation_failed`: a `limit` out of 1–100, a malformed `cursor`, or an unknown parameter.'),
    },
  },
  {
    method: 'get',
    path: '/v1/streams/{stream_id}',
    operationId: 'getStream',
    tag: 'Streams',
    summary: 'One stream of the caller',
    description: 'The Stream as it is now: its `status`, how many events were `delivered`, and `last_error` when a webhook sink failed.',
    security: CALLER,
    parameters: [{ name: 'stream_id', in: 'path', required: true, description: 'The `id` of a stream.', schema: streamSchema.shape.id }],
    responses: {
      200: { description: 'The Stream.', body: STREAM },
      ...authFailures,
      404: error("`stream_not_found`: unknown, malformed, or another account's id (indistinguishable)."),
    },
  },
  {
    method: 'delete',
    path: '/v1/streams/{stream_id}',
    operationId: 'cancelStream',
    tag: 'Streams',
    summary: 'Cancel a stream',
    description: 'Ends a running stream `cancelled` (idempotent: an ended stream is answered as it is); what was never delivered is given back.',
    security: CALLER,
    parameters: [{ name: 'stream_id', in: 'path', required: true, description: 'The `id` of a stream.', schema: streamSchema.shape.id }],
    responses: {
      200: { description: 'The Stream, `cancelled` (or as it ended).', body: STREAM },
      ...authFailures,
      404: error("`stream_not_found`: unknown, malformed, or another account's id (indistinguishable)."),
    },
  },
  {
    method: 'get',
    path: '/v1/streams/{stream_id}/events',
    operationId: 'readStreamEvents',
    tag: 'Streams',
    summary: "A stream's events as Server-Sent Events",
    description:
      'Each due event as one SSE message: `id:` its position, `data:` the envelope `{"position","record","delay_ms","duplicate"}`; a comment at least every 15 s; `event: end` with the Stream once the last one was delivered. `Last-Event-ID: N` (or `?last_event_id=N`) resumes after position N, byte-identical to an uninterrupted read. Several readers may read one stream; readable until 7 days after it finished.',
    security: CALLER,
    parameters: [
      { name: 'stream_id', in: 'path', required: true, description: 'The `id` of a stream.', schema: streamSchema.shape.id },
      { name: 'Last-Event-ID', in: 'header', required: false, description: 'Resume after this position.', schema: z.string() },
      { name: 'last_event_id', in: 'query', required: false, description: 'Resume after this position (for clients that cannot set the header).', schema: z.string() },
    ],
    responses: {
      200: { description: 'The event stream.', text: 'text/event-stream' },
      ...authFailures,
      404: error("`stream_not_found`: unknown, malformed, another account's id, or finished more than 7 days ago."),
      422: error('`validation_failed`: a Last-Event-ID that is not a position.'),
    },
  },
  ...MODEL_OPERATIONS,
];

/**
 * Routes the routers serve that are not part of the HTTP API, each with why: web pages and their assets,
 * this description itself, and the operators' dashboard (a UI of its own, with its own internal API).
 */
export const UNDOCUMENTED_ROUTES: Readonly<Record<string, string>> = {
  'GET /': 'the landing page (HTML)',
  'GET /account': 'the web console (HTML)',
  'GET /account/{page}': "the web console's other pages (the same HTML; its script shows the page)",
  'GET /account/streams/{id}': "the web console's page of one live stream (the same HTML; its script shows the stream)",
  'GET /assets/{version}/{path}': "the web pages' assets",
  'GET /docs': 'this reference, rendered (HTML)',
  'GET /docs/{asset}': "the reference page's assets",
  'GET /openapi.json': 'this document',
  'ALL /admin/queues': 'the queue dashboard (bull-board UI), only with ADMIN_TOKEN',
  'ALL /admin/queues/{rest}': "the queue dashboard's pages, assets and internal API",
};
