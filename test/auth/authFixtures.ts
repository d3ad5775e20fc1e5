import { randomBytes } from 'node:crypto';
import type { TestFn } from 'ava';
import { signIn, signInEnv } from '../helpers/signInWithIdp.ts';
import { startTestApp, type TestApp } from '../helpers/startTestApp.ts';
import { type DevIdentity, startTestIdp, type TestIdp } from '../helpers/startTestIdp.ts';

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

export interface SignInStack {
  readonly idp: TestIdp;
  readonly app: TestApp;
}

/**
 * Registers a test file's hooks for signing in: before its tests, a test IdP and an app whose providers are
 * that IdP; after them, both closed. The fields are set once the before hook has run, so read them inside
 * tests, not at module level.
 */
export const useSignInStack = (test: TestFn): SignInStack => {
  const stack: { idp?: TestIdp; app?: TestApp } = {};
  test.before(async () => {
    stack.idp = await startTestIdp();
    stack.app = await startTestApp({ env: signInEnv(stack.idp) });
  });
  test.after.always(async () => {
    await stack.app?.close();
    await stack.idp?.stop();
  });
  return stack as SignInStack;
};

/** Someone new signed in through GitHub: their session cookie and account id. */
export const signedIn = async ({ app, idp }: SignInStack): Promise<{ cookie: string; accountId: string }> => {
  const login = await signIn(app, idp, 'github', someone());
  const account = await getAccount(app, login.sessionCookie);
  if (login.sessionCookie === undefined || account.status !== 200) {
    throw new Error('sign-in failed');
  }
  return { cookie: login.sessionCookie, accountId: account.body.id };
};
