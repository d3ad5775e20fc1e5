import { randomUUID } from 'node:crypto';
import createClient from 'openapi-fetch';
import { BssApiError } from './BssApiError.ts';
import { BssConnectionError } from './BssConnectionError.ts';
import { readStreamEvents, type StreamEnvelope, type StreamEventsOptions } from './readStreamEvents.ts';
import { createRetryingFetch, type RetryNotice } from './createRetryingFetch.ts';
import { downloadRecords, type RecordsDownload } from './downloadRecords.ts';
import type { components, paths } from './openapi.ts';
import { parseRecordStream, type SimulationFormat, type SimulationRecord } from './parseRecordStream.ts';

type Schemas = components['schemas'];
export type SimulationRequest = Schemas['SimulationRequest'];
/** A model definition (docs/models.md), the body of `models.put` and `models.validate`. */
export type ModelDefinition = Schemas['ModelDefinition'];
/** The filters and page of GET /v1/simulations. */
export type RunQuery = NonNullable<paths['/v1/simulations']['get']['parameters']['query']>;

export interface BssClientOptions {
  /** The service's origin, e.g. `http://localhost:3000`. */
  readonly baseUrl: string;
  /** An API key (`bs_live_…`); public endpoints work without one. */
  readonly apiKey?: string | undefined;
  /** Retries of a 429/503 after `Retry-After`; default 3. */
  readonly maxRetries?: number;
  /** Longest `Retry-After` waited for, in seconds; default 60. */
  readonly maxRetryWaitSeconds?: number;
  readonly onRetry?: (notice: RetryNotice) => void;
  /** For tests and custom transports. */
  readonly fetch?: (request: Request) => Promise<Response>;
}

export interface PostOptions {
  /** Sent as `Idempotency-Key`; a fresh UUID when absent, so that retries are safe. */
  readonly idempotencyKey?: string;
  readonly signal?: AbortSignal;
}

/**
 * Asked on every simulation: the service codes JSON, NDJSON and CSV in zstd, br or gzip, and fetch decodes
 * each of them (Node 24's included), so the caller sees the body's own bytes.
 */
const ACCEPT_ENCODING = 'zstd, br, gzip';

export interface DownloadOptions {
  /** Resumes of a connection cut mid-body; default 5. */
  readonly maxResumes?: number;
  readonly signal?: AbortSignal;
}

export const MEDIA_TYPES: Readonly<Record<SimulationFormat, string>> = {
  json: 'application/json',
  ndjson: 'application/x-ndjson',
  csv: 'text/csv',
  parquet: 'application/vnd.apache.parquet',
};

/** A completed scenario run as a benchmark archive (GET /v1/simulations/{simulation_id}/dataset). */
export type DatasetQuery = paths['/v1/simulations/{simulation_id}/dataset']['get']['parameters']['query'];

export interface DatasetDownload {
  readonly response: Response;
  /** The zip archive's bytes as they arrive; a body cut short throws BssConnectionError. Read once. */
  readonly bytes: AsyncIterable<Uint8Array>;
}

/** The run's identity, from the `Simulation-*` headers (absent from services older than the output formats). */
export interface SimulationIdentity {
  readonly id: string | undefined;
  readonly preset: string | undefined;
  /** A model run's version, `name@version`; undefined for a preset run. */
  readonly model: string | undefined;
  readonly profile: string | undefined;
  readonly seed: number | undefined;
  readonly engineVersion: string | undefined;
}

export interface SimulationStream {
  readonly format: SimulationFormat;
  readonly response: Response;
  readonly simulation: SimulationIdentity;
  /** The body's bytes as they arrive, exactly as the API sent them (for files). Read it or `records`, once. */
  readonly bytes: AsyncIterable<Uint8Array>;
  /**
   * The records, parsed from the body: NDJSON and CSV as it arrives, JSON and Parquet once it is whole
   * (a Parquet file's footer comes last); every format yields the same records, integers as numbers.
   */
  readonly records: () => AsyncGenerator<SimulationRecord>;
}

const unwrap = <T>(result: { data?: T; error?: unknown; response: Response }): T => {
  if (!result.response.ok || result.data === undefined) {
    throw BssApiError.fromResponse(result.response, result.error);
  }
  return result.data;
};

const identityOf = (headers: Headers): SimulationIdentity => {
  const seed = headers.get('simulation-seed');
  return {
    id: headers.get('simulation-id') ?? undefined,
    preset: headers.get('simulation-preset') ?? undefined,
    model: headers.get('simulation-model') ?? undefined,
    profile: headers.get('simulation-profile') ?? undefined,
    seed: seed === null ? undefined : Number(seed),
    engineVersion: headers.get('simulation-engine-version') ?? undefined,
  };
};

/**
 * The body's chunks; a connection that ends without the body's last chunk (the service's way of saying a
 * run failed after its first bytes) throws a BssConnectionError rather than passing for a shorter body.
 */
const guardBody = async function* (body: ReadableStream<Uint8Array>, url: string, signal: AbortSignal | undefined): AsyncGenerator<Uint8Array> {
  try {
    yield* body as unknown as AsyncIterable<Uint8Array>;
  } catch (error) {
    if (signal?.aborted) {
      throw error;
    }
    throw new BssConnectionError(url, error, 'cut_short');
  }
};

const mediaTypeOf = (response: Response): string => (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';

const unexpectedResponse = (response: Response, asked: string): BssApiError => {
  const received = mediaTypeOf(response);
  return new BssApiError({
    message: `the service answered ${received || 'no content type'} where ${asked} was asked; it may predate output formats`,
    status: response.status,
    code: 'unexpected_response',
    requestId: response.headers.get('x-request-id') ?? undefined,
  });
};

/** A typed client of the Behavioral Simulation Service. Every failure throws `BssApiError` or `BssConnectionError`. */
export const createBssClient = (options: BssClientOptions) => {
  const retryingFetch = createRetryingFetch({
    ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
    ...(options.maxRetryWaitSeconds === undefined ? {} : { maxWaitSeconds: options.maxRetryWaitSeconds }),
    ...(options.onRetry === undefined ? {} : { onRetry: options.onRetry }),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
  const authorization: Record<string, string> = options.apiKey === undefined || options.apiKey === '' ? {} : { Authorization: `Bearer ${options.apiKey}` };
  const client = createClient<paths>({ baseUrl: options.baseUrl, fetch: retryingFetch, headers: authorization });
  const getFrom =
    (url: string, credentials: Record<string, string>, signal: AbortSignal | undefined) =>
    (headers: Record<string, string>): Promise<Response> =>
      retryingFetch(new Request(url, { headers: { ...credentials, ...headers }, ...(signal === undefined ? {} : { signal }) }));
  const idempotency = (post: PostOptions | undefined) => ({ 'Idempotency-Key': post?.idempotencyKey ?? randomUUID() });

  return {
    listPresets: async (): Promise<Schemas['PresetList']> => unwrap(await client.GET('/v1/presets')),
    getPreset: async (preset: string): Promise<Schemas['Preset']> => unwrap(await client.GET('/v1/presets/{preset}', { params: { path: { preset } } })),
    getAccount: async (): Promise<Schemas['Account']> => unwrap(await client.GET('/v1/account')),
    getUsage: async (): Promise<Schemas['Usage']> => unwrap(await client.GET('/v1/usage')),
    listApiKeys: async (): Promise<Schemas['ApiKeyList']> => unwrap(await client.GET('/v1/api-keys')),
    /** The created key with its secret; a replay of the same Idempotency-Key answers it again without `key`. */
    createApiKey: async (name: string, post?: PostOptions): Promise<Schemas['ApiKeyCreatedOrReplayed']> =>
      unwrap(await client.POST('/v1/api-keys', { body: { name }, headers: idempotency(post), ...(post?.signal ? { signal: post.signal } : {}) })),
    revokeApiKey: async (keyId: string): Promise<Schemas['ApiKeyRevoked']> =>
      unwrap(await client.DELETE('/v1/api-keys/{key_id}', { params: { path: { key_id: keyId } } })),
    /** Replaces a key: the old one keeps working for `expiresIn` seconds (service default 86400; 0 revokes it now). */
    rollApiKey: async (keyId: string, roll: PostOptions & { readonly expiresIn?: number } = {}): Promise<Schemas['ApiKeyRolled']> =>
      unwrap(
        await client.POST('/v1/api-keys/{key_id}/roll', {
          params: { path: { key_id: keyId } },
          body: roll.expiresIn === undefined ? {} : { expires_in: roll.expiresIn },
          headers: idempotency(roll),
        }),
      ),
    /** The account's runs, newest first; pass `next_cursor` back as `cursor` for the next page. */
    listSimulations: async (query: RunQuery = {}): Promise<Schemas['RunList']> => unwrap(await client.GET('/v1/simulations', { params: { query } })),
    /** Runs a simulation and returns the parsed Simulation result. */
    simulate: async (request: SimulationRequest, post?: PostOptions): Promise<Schemas['SimulationResult']> => {
      const result = await client.POST('/v1/simulations', {
        body: request,
        headers: { ...idempotency(post), 'Accept-Encoding': ACCEPT_ENCODING },
        ...(post?.signal ? { signal: post.signal } : {}),
      });
      const body = unwrap(result);
      // The document lists NDJSON and CSV too (strings); without `Accept` the service answers JSON.
      if (typeof body === 'string') {
        throw unexpectedResponse(result.response, MEDIA_TYPES.json);
      }
      return body;
    },
    /**
     * Runs a simulation and streams its body in `format` (`Accept` negotiation). The promise resolves
     * with the headers; the records follow as they are made. A body cut short (the run failed after its
     * first bytes) makes the iteration throw instead of ending quietly.
     */
    streamSimulation: async (request: SimulationRequest, format: SimulationFormat = 'json', post?: PostOptions): Promise<SimulationStream> => {
      const result = await client.POST('/v1/simulations', {
        body: request,
        headers: { ...idempotency(post), Accept: MEDIA_TYPES[format], 'Accept-Encoding': ACCEPT_ENCODING },
        parseAs: 'stream',
        ...(post?.signal ? { signal: post.signal } : {}),
      });
      const body = unwrap(result) as unknown as ReadableStream<Uint8Array>;
      const received = mediaTypeOf(result.response);
      if (received !== MEDIA_TYPES[format]) {
        await body.cancel();
        // Writing JSON into a file named .csv would be worse than failing.
        throw unexpectedResponse(result.response, MEDIA_TYPES[format]);
      }
      const bytes = guardBody(body, result.response.url, post?.signal);
      return {
        format,
        response: result.response,
        simulation: identityOf(result.response.headers),
        bytes,
        records: () => parseRecordStream(format, bytes),
      };
    },
    /** A URL that serves the run's records in `format` with no credentials until it expires (default 1 h). */
    createDownloadLink: async (simulationId: string, link: { readonly format: SimulationFormat; readonly expiresIn?: number }): Promise<Schemas['DownloadLink']> =>
      unwrap(
        await client.POST('/v1/simulations/{simulation_id}/links', {
          params: { path: { simulation_id: simulationId } },
          body: { format: link.format, ...(link.expiresIn === undefined ? {} : { expires_in: link.expiresIn }) },
        }),
      ),
    /**
     * A completed run's records again, in `format`, byte for byte as first answered; a connection cut
     * mid-body is resumed where it stopped (`Range` guarded by `If-Range`).
     */
    downloadRecords: async (simulationId: string, format: SimulationFormat = 'json', download: DownloadOptions = {}): Promise<RecordsDownload> =>
      downloadRecords(getFrom(`${options.baseUrl}/v1/simulations/${encodeURIComponent(simulationId)}/records`, authorization, download.signal), {
        ...download,
        accept: MEDIA_TYPES[format],
      }),
    /**
     * A completed scenario run as a zip archive that detection benchmarks load (`timeeval` or `nab`), streamed:
     * write `bytes` to a file. Refusals (404, 409, 422, 429 after the retries) throw BssApiError.
     */
    dataset: async (simulationId: string, query: DatasetQuery, download: { readonly signal?: AbortSignal } = {}): Promise<DatasetDownload> => {
      const search = new URLSearchParams({ layout: query.layout, ...(query.field === undefined ? {} : { field: query.field }) });
      const url = `${options.baseUrl}/v1/simulations/${encodeURIComponent(simulationId)}/dataset?${search.toString()}`;
      const response = await getFrom(url, authorization, download.signal)({ Accept: 'application/zip' });
      if (response.status !== 200 || response.body === null) {
        throw BssApiError.fromResponse(response, await response.json().catch(() => undefined));
      }
      if (mediaTypeOf(response) !== 'application/zip') throw unexpectedResponse(response, 'application/zip');
      return { response, bytes: guardBody(response.body, url, download.signal) };
    },
    /** The account's own models (docs/models.md#the-http-api); run one with `simulate({ model: 'name', … })`. */
    models: {
      /** Stores a definition: 201 a new model or version, 200 (same version) when it equals the latest by value. */
      put: async (name: string, definition: ModelDefinition): Promise<Schemas['Model']> =>
        unwrap(await client.PUT('/v1/models/{name}', { params: { path: { name } }, body: definition })),
      /** The latest version, or the version given. */
      get: async (name: string, version?: number): Promise<Schemas['Model']> =>
        version === undefined
          ? unwrap(await client.GET('/v1/models/{name}', { params: { path: { name } } }))
          : unwrap(await client.GET('/v1/models/{name}/versions/{version}', { params: { path: { name, version: String(version) } } })),
      /** The account's models, latest version each, newest first. */
      list: async (): Promise<Schemas['ModelList']> => unwrap(await client.GET('/v1/models')),
      /** Checks a definition without storing it: every issue, the warnings and, when valid, a sample. */
      validate: async (definition: unknown): Promise<Schemas['ModelValidation']> =>
        unwrap(await client.POST('/v1/models/validate', { body: definition as ModelDefinition })),
      /** Deletes every version of the name; runs already made replay as before. */
      delete: async (name: string): Promise<Schemas['ModelDeleted']> => unwrap(await client.DELETE('/v1/models/{name}', { params: { path: { name } } })),
    },
    /** Live streams (docs/streams.md): a run delivered as it happens, over SSE or to a webhook. */
    streams: {
      create: async (request: Schemas['StreamRequest']): Promise<Schemas['CreatedStream']> => unwrap(await client.POST('/v1/streams', { body: request })),
      get: async (streamId: string): Promise<Schemas['Stream']> => unwrap(await client.GET('/v1/streams/{stream_id}', { params: { path: { stream_id: streamId } } })),
      list: async (query: { limit?: number; cursor?: string } = {}): Promise<Schemas['StreamList']> => unwrap(await client.GET('/v1/streams', { params: { query } })),
      cancel: async (streamId: string): Promise<Schemas['Stream']> => unwrap(await client.DELETE('/v1/streams/{stream_id}', { params: { path: { stream_id: streamId } } })),
      /** The stream's envelopes as they come due, resumed with Last-Event-ID across broken connections. */
      events: (streamId: string, read: StreamEventsOptions = {}): AsyncGenerator<StreamEnvelope, void> => {
        const url = `${options.baseUrl}/v1/streams/${encodeURIComponent(streamId)}/events`;
        // Not through the retrying fetch: a reconnection resumes from the last position itself.
        const get = (headers: Record<string, string>): Promise<Response> =>
          (options.fetch ?? fetch)(new Request(url, { headers: { ...authorization, ...headers }, ...(read.signal === undefined ? {} : { signal: read.signal }) }));
        return readStreamEvents(get, url, read);
      },
    },
    /** The records a download link serves (no credentials sent), resumed like `downloadRecords`. */
    downloadLink: async (url: string, download: DownloadOptions = {}): Promise<RecordsDownload> => downloadRecords(getFrom(url, {}, download.signal), download),
  };
};

export type BssClient = ReturnType<typeof createBssClient>;
