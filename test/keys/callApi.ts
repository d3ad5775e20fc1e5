import type { TestApp } from '../helpers/startTestApp.ts';

export interface ApiResponse {
  readonly status: number;
  readonly headers: Headers;
  // Tests read fields freely; the contract's shape is what they assert.
  readonly body: any;
}

/** One real HTTP request to the test app, with an API key as Bearer when given. */
export const callApi = async (
  app: TestApp,
  method: string,
  path: string,
  options: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<ApiResponse> => {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) {
    headers.Authorization = `Bearer ${options.key}`;
  }
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['Content-Type'] ??= 'application/json';
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  }
  const response = await fetch(`${app.url}${path}`, { method, headers, body });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) };
};
