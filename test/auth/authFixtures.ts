import { randomBytes } from 'node:crypto';
import type { TestApp } from '../helpers/startTestApp.ts';
import type { DevIdentity } from '../helpers/startTestIdp.ts';

export interface JsonResponse {
  readonly status: number;
  readonly headers: Headers;
  // Tests read fields freely; the contract's shape is what they assert.
  readonly body: any;
}

/** A person unknown to the service so far: a unique subject and verified address per call. */
export const someone = (overrides: Partial<DevIdentity> = {}): DevIdentity => {
  const id = randomBytes(6).toString('hex');
  return { subject: String(parseInt(id, 16)), email: `person-${id}@example.test`, emailVerified: true, name: `Person ${id}`, ...overrides };
};

/** One request to the app as a browser: the session cookie when given, nothing else implied. */
export const browserRequest = async (
  app: TestApp,
  method: string,
  path: string,
  options: { cookie?: string | undefined; origin?: string; referer?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<JsonResponse> => {
  const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
  if (options.cookie !== undefined) {
    headers.Cookie = options.cookie;
  }
  if (options.origin !== undefined) {
    headers.Origin = options.origin;
  }
  if (options.referer !== undefined) {
    headers.Referer = options.referer;
  }
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  const response = await fetch(`${app.url}${path}`, { method, headers, body, redirect: 'manual' });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: response.status, headers: response.headers, body: parsed };
};

export const getAccount = (app: TestApp, cookie: string | undefined): Promise<JsonResponse> => browserRequest(app, 'GET', '/v1/account', { cookie });
