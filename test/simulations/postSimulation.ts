import type { TestApp } from '../helpers/startTestApp.ts';

export interface SimulationResponse {
  readonly status: number;
  readonly headers: Headers;
  /** The raw body, for byte-level comparisons. */
  readonly text: string;
  /** The body's bytes, for binary formats (Parquet). */
  readonly bytes: Buffer;
  // Tests read fields freely; the contract's shape is what they assert.
  readonly body: any;
}

/** POST /v1/simulations over real HTTP, with the key as Bearer when given. */
export const postSimulation = async (
  app: TestApp,
  body: unknown,
  options: { key?: string; headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<SimulationResponse> => {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', ...options.headers };
  if (options.key !== undefined) {
    headers.Authorization = `Bearer ${options.key}`;
  }
  const response = await fetch(`${app.url}/v1/simulations`, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  const bytes = Buffer.from(await response.arrayBuffer());
  const text = bytes.toString('utf8');
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, text, bytes, body: parsed };
};

/** The `data` array exactly as sent: the bytes between `"data":` and the `,"scenario":` echo that follows it. */
export const rawData = (text: string): string => text.slice(text.indexOf('"data":') + '"data":'.length, text.lastIndexOf(',"scenario":'));
