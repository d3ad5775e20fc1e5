import type { TestApp } from './startTestApp.ts';
import type { DevOutcome, TestIdp } from './startTestIdp.ts';

/** The service's own origin in tests that sign in: the OAuth redirect URI and the CSRF check use it. */
export const TEST_PUBLIC_URL = 'http://service.example.test';
/** Where logins land. */
export const TEST_FRONTEND_URL = 'http://frontend.example.test';

/** startTestApp `env` for a service whose providers are the test IdP. */
export const signInEnv = (idp: TestIdp, extra: Record<string, string> = {}): Record<string, string> => ({
  ...idp.env,
  PUBLIC_URL: TEST_PUBLIC_URL,
  FRONTEND_URL: TEST_FRONTEND_URL,
  ...extra,
});

/** `name=value` of a Set-Cookie for `name` among a response's, or undefined. */
export const setCookieFor = (response: Response, name: string): string | undefined =>
  response.headers.getSetCookie().find((line) => line.startsWith(`${name}=`));

/** The `name=value` pair of a Set-Cookie line, as a browser would send it back. */
const cookiePair = (setCookie: string): string => setCookie.split(';')[0] ?? '';

export interface StartedLogin {
  /** The 302 of GET /v1/auth/{provider}. */
  readonly response: Response;
  readonly authorizeUrl: URL;
  readonly state: string;
  /** `service_oauth=...`, the pre-login cookie the browser keeps until the callback. */
  readonly preLoginCookie: string;
}

/** Step 1, in the browser: GET /v1/auth/{provider}, which redirects to the provider. */
export const startLogin = async (app: TestApp, provider: string): Promise<StartedLogin> => {
  const response = await fetch(`${app.url}/v1/auth/${provider}`, { redirect: 'manual' });
  const location = response.headers.get('location');
  const preLogin = setCookieFor(response, 'service_oauth');
  if (response.status !== 302 || location === null || preLogin === undefined) {
    throw new Error(`login did not start: ${response.status} ${await response.text()}`);
  }
  const authorizeUrl = new URL(location);
  return { response, authorizeUrl, state: authorizeUrl.searchParams.get('state') ?? '', preLoginCookie: cookiePair(preLogin) };
};

/** Step 2, at the provider: the authorize request, whose redirect names the service's callback URL. */
export const authorizeAtIdp = async (authorizeUrl: URL): Promise<URL> => {
  const response = await fetch(authorizeUrl, { redirect: 'manual' });
  const location = response.headers.get('location');
  if (response.status !== 302 || location === null) {
    throw new Error(`the IdP did not redirect back: ${response.status} ${await response.text()}`);
  }
  return new URL(location);
};

/**
 * Step 3, back at the service: the callback URL (on PUBLIC_URL) is sent to the app's real address, with
 * the cookies the browser holds.
 */
export const followCallback = (app: TestApp, callbackUrl: URL, cookies: readonly string[]): Promise<Response> =>
  fetch(`${app.url}${callbackUrl.pathname}${callbackUrl.search}`, {
    redirect: 'manual',
    headers: cookies.length === 0 ? {} : { Cookie: cookies.join('; ') },
  });

export interface SignIn {
  /** The callback's response (302 to the frontend). */
  readonly response: Response;
  /** `service_session=...` when the login succeeded. */
  readonly sessionCookie: string | undefined;
  readonly location: string | null;
}

/** The whole browser flow, with the IdP answering `outcome` for this one login. */
export const signIn = async (app: TestApp, idp: TestIdp, provider: 'github' | 'google', outcome: DevOutcome, cookies: readonly string[] = []): Promise<SignIn> => {
  const started = await startLogin(app, provider);
  idp.setOutcomeForState(started.state, outcome);
  const callbackUrl = await authorizeAtIdp(started.authorizeUrl);
  const response = await followCallback(app, callbackUrl, [started.preLoginCookie, ...cookies]);
  const session = setCookieFor(response, 'service_session');
  const sessionCookie = session === undefined || cookiePair(session) === 'service_session=' ? undefined : cookiePair(session);
  return { response, sessionCookie, location: response.headers.get('location') };
};
