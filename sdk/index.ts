// The SDK's public surface: `import { createBssClient } from '<repo>/sdk/index.ts'`.
import type { components } from './openapi.ts';

export { BssApiError } from './BssApiError.ts';
export { BssConnectionError } from './BssConnectionError.ts';
export {
  type BssClient,
  type BssClientOptions,
  createBssClient,
  type DownloadOptions,
  MEDIA_TYPES,
  type ModelDefinition,
  type PostOptions,
  type RunQuery,
  type SimulationIdentity,
  type SimulationRequest,
  type SimulationStream,
} from './createBssClient.ts';
export type { RetryNotice } from './createRetryingFetch.ts';
export type { RecordsDownload } from './downloadRecords.ts';
export type { StreamEnvelope, StreamEventsOptions } from './readStreamEvents.ts';
export type { components, paths } from './openapi.ts';
export type { SimulationFormat, SimulationRecord } from './parseRecordStream.ts';

type Schemas = components['schemas'];
/** The generated schemas the client's methods answer with, by name. */
export type ApiKeyRolled = Schemas['ApiKeyRolled'];
export type Run = Schemas['Run'];
export type RunPage = Schemas['RunList'];
export type RunStatus = Run['status'];
export type Model = Schemas['Model'];
export type ModelSummary = Schemas['ModelList'][number];
export type ModelValidation = Schemas['ModelValidation'];
