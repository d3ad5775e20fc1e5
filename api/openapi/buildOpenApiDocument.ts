import { z } from 'zod';
import { API_VERSION } from '../../shared/version.ts';
import { errorEnvelopeSchema } from './errorEnvelopeSchema.ts';
import { type NamedSchema, OPERATIONS, type OperationSpec, type ResponseSpec } from './operations.ts';

type JsonObject = Record<string, unknown>;

const ERROR_ENVELOPE = 'ErrorEnvelope';

/**
 * zod's own JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1). Requests are described as clients may
 * send them (`input`), responses as the service sends them (`output`). A schema that would need `$defs`
 * cannot be hoisted into components as is, so it is refused here rather than emitted broken.
 */
const toJsonSchema = (schema: z.ZodType, io: 'input' | 'output'): JsonObject => {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any' }) as JsonObject;
  if ('$defs' in json) {
    throw new Error('a documented schema must not need $defs');
  }
  return json;
};

const ref = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });

const TAG_DESCRIPTIONS: Readonly<Record<OperationSpec['tag'], string>> = {
  Probes: 'Liveness and readiness for load balancers and orchestrators; public, never rate limited.',
  Catalog: 'The presets, their profiles and record fields, their fidelity reports, and the plans; public.',
  Simulations: 'Running simulations, the history of runs, replays of their records, and download links.',
  Models: "The account's own behavioural models: definitions checked, stored as immutable versions, and run like presets.",
  Streams: 'Live streams: a time-ordered run delivered as it happens, over Server-Sent Events or to a webhook, with labelled disorder.',
  Account: "The caller's account and its usage against the plan's quotas.",
  'API keys': "Creating, listing, rolling and revoking the account's API keys.",
  'Sign-in': 'OAuth sign-in (GitHub, Google) for the browser console, and signing out.',
  Operations: "Operators' interfaces: Prometheus metrics and the queue dashboard.",
};

export interface OpenApiOptions {
  /** The service's public origin, listed as the server. */
  readonly publicUrl?: string;
}

/** The OpenAPI 3.1 description of the HTTP API, built from the route modules' zod schemas. */
export const buildOpenApiDocument = (options: OpenApiOptions = {}, operations: readonly OperationSpec[] = OPERATIONS): JsonObject => {
  const schemas: Record<string, JsonObject> = { [ERROR_ENVELOPE]: toJsonSchema(errorEnvelopeSchema, 'output') };
  const sources = new Map<string, z.ZodType>([[ERROR_ENVELOPE, errorEnvelopeSchema]]);
  const component = ({ name, schema }: NamedSchema, io: 'input' | 'output'): JsonObject => {
    const known = sources.get(name);
    if (known !== undefined && known !== schema) {
      throw new Error(`two schemas are named ${name}`);
    }
    if (known === undefined) {
      sources.set(name, schema);
      schemas[name] = toJsonSchema(schema, io);
    }
    return ref(name);
  };

  const response = (spec: ResponseSpec): JsonObject => {
    const headers: JsonObject = { 'X-Request-ID': { $ref: '#/components/headers/RequestId' } };
    for (const [name, description] of Object.entries(spec.headers ?? {})) {
      headers[name] = { description, schema: { type: 'string' } };
    }
    const content: Record<string, JsonObject> | undefined =
      spec.body === 'error'
        ? { 'application/json': { schema: ref(ERROR_ENVELOPE) } }
        : spec.body !== undefined
          ? { 'application/json': { schema: component(spec.body, 'output') } }
          : spec.text !== undefined
            ? { [spec.text]: { schema: { type: 'string' } } }
            : spec.binary !== undefined
              ? { [spec.binary]: { schema: { type: 'string', format: 'binary' } } }
              : undefined;
    for (const [mediaType, description] of Object.entries(spec.alternatives ?? {})) {
      if (content !== undefined) {
        content[mediaType] = { schema: { type: 'string', description } };
      }
    }
    return { description: spec.description, headers, ...(content === undefined ? {} : { content }) };
  };

  const paths: Record<string, JsonObject> = {};
  for (const operation of operations) {
    const item = (paths[operation.path] ??= {});
    item[operation.method] = {
      operationId: operation.operationId,
      tags: [operation.tag],
      summary: operation.summary,
      description: operation.description,
      // `security: []` says an operation is public, rather than leaving readers to guess.
      security: (operation.security ?? []).map((alternative) => Object.fromEntries(alternative.map((name) => [name, []]))),
      ...(operation.parameters === undefined
        ? {}
        : {
            parameters: operation.parameters.map((parameter) => ({
              name: parameter.name,
              in: parameter.in,
              required: parameter.required,
              description: parameter.description,
              schema: toJsonSchema(parameter.schema, 'input'),
            })),
          }),
      ...(operation.requestBody === undefined
        ? {}
        : { requestBody: { required: operation.requestBodyOptional !== true, content: { 'application/json': { schema: component(operation.requestBody, 'input') } } } }),
      responses: Object.fromEntries(Object.entries(operation.responses).map(([status, spec]) => [status, response(spec)])),
    };
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Behavioral Simulation Service',
      version: API_VERSION,
      description:
        'Generates synthetic behavioral telemetry from seeded, reproducible domain models. Authenticate with `Authorization: Bearer <API key>` or, in a browser, the `service_session` cookie of an OAuth sign-in. Every response carries `X-Request-ID`; every error is the `ErrorEnvelope`.',
    },
    ...(options.publicUrl === undefined ? {} : { servers: [{ url: options.publicUrl }] }),
    tags: [...new Set(operations.map((operation) => operation.tag))].map((name) => ({ name, description: TAG_DESCRIPTIONS[name] })),
    paths,
    components: {
      schemas,
      headers: {
        RequestId: {
          description: "The request's id: the caller's well-formed `X-Request-ID`, echoed, or a fresh UUID. Equals `error.request_id`.",
          schema: { type: 'string' },
        },
      },
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', bearerFormat: 'bs_live_<32 characters>', description: 'An API key, `Authorization: Bearer bs_live_…`.' },
        sessionCookie: {
          type: 'apiKey',
          in: 'cookie',
          name: 'service_session',
          description: 'The encrypted session cookie set by the OAuth sign-in (HttpOnly, SameSite=Lax, 7 days).',
        },
        metricsToken: { type: 'http', scheme: 'bearer', description: 'The operators\' METRICS_TOKEN, when it is set.' },
      },
    },
  };
};
