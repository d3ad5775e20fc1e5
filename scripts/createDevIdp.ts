import type { IncomingMessage, ServerResponse } from 'node:http';
import { Events, OAuth2Server, type MutableRedirectUri, type MutableResponse, type TokenRequestIncomingMessage } from 'oauth2-mock-server';

/** Who a login at the development identity provider signs in as. */
export interface DevIdentity {
  /** The provider's user id: GitHub's numeric `id` (digits are sent as a number), Google's `sub`. */
  readonly subject: string;
  readonly email: string | null;
  readonly emailVerified: boolean;
  readonly name: string;
}

/** What the next authorization does: sign in as an identity, or refuse (denied consent). */
export type DevOutcome = DevIdentity | 'deny';

export interface DevIdp {
  /** Base URL, e.g. http://127.0.0.1:4010 */
  readonly url: string;
  /** The service's OAUTH_* variables that point both providers at this server. */
  readonly env: Readonly<Record<string, string>>;
  /** The identity every later login returns, unless a login was given its own outcome. */
  readonly setIdentity: (identity: DevIdentity) => void;
  /** The outcome of the one login whose authorize request carries this `state` (race-free for tests). */
  readonly setOutcomeForState: (state: string, outcome: DevOutcome) => void;
  /** Refuses the next login with `error=access_denied`, as when a person clicks "Cancel". */
  readonly denyNext: () => void;
  readonly stop: () => Promise<void>;
}

export const DEFAULT_DEV_IDENTITY: DevIdentity = {
  subject: '1001',
  email: 'developer@example.test',
  emailVerified: true,
  name: 'Local Developer',
};

export const DEV_CLIENT_ID = 'dev-client';
export const DEV_CLIENT_SECRET = 'dev-client-secret';

/**
 * A local OAuth 2.0 provider for development and tests, so that sign-in works with no internet. It is
 * oauth2-mock-server (authorize with PKCE, token, OIDC userinfo) plus GitHub's `/user` and `/user/emails`
 * under `/github`, and a way to choose who signs in: each authorization code, then each access token, is
 * bound to the identity chosen when it was issued.
 */
export const createDevIdp = async (options: { readonly port?: number; readonly host?: string } = {}): Promise<DevIdp> => {
  const server = new OAuth2Server();
  await server.issuer.keys.generate('RS256');
  const service = server.service;

  let identity: DevIdentity = DEFAULT_DEV_IDENTITY;
  let denyNext = false;
  const byState = new Map<string, DevOutcome>();
  const byCode = new Map<string, DevIdentity>();
  // Codes issued for a PKCE challenge: the mock checks a verifier when one is sent, a real provider also
  // refuses the exchange when it is missing.
  const pkceCodes = new Set<string>();
  const byToken = new Map<string, DevIdentity>();

  service.on(Events.BeforeAuthorizeRedirect, (redirect: MutableRedirectUri, req: IncomingMessage & { query?: Record<string, unknown> }) => {
    const { searchParams } = redirect.url;
    const state = searchParams.get('state') ?? '';
    let outcome: DevOutcome = identity;
    if (byState.has(state)) {
      outcome = byState.get(state) ?? identity;
      byState.delete(state);
    } else if (denyNext) {
      denyNext = false;
      outcome = 'deny';
    }
    const code = searchParams.get('code');
    if (outcome === 'deny') {
      searchParams.delete('code');
      searchParams.set('error', 'access_denied');
      searchParams.set('error_description', 'The user denied the request.');
    } else if (code !== null) {
      byCode.set(code, outcome);
      if (typeof req.query?.code_challenge === 'string') {
        pkceCodes.add(code);
      }
    }
  });

  // The id_token's subject follows the chosen identity too.
  service.on(Events.BeforeTokenSigning, (token: { payload: Record<string, unknown> }, req: TokenRequestIncomingMessage) => {
    const chosen = req.body.code === undefined ? undefined : byCode.get(req.body.code);
    if (chosen !== undefined) {
      token.payload.sub = chosen.subject;
    }
  });

  service.on(Events.BeforeResponse, (response: MutableResponse, req: TokenRequestIncomingMessage) => {
    if (req.body.grant_type !== 'authorization_code') {
      return;
    }
    const code = req.body.code ?? '';
    const chosen = byCode.get(code);
    // A code works once, like a real provider's.
    byCode.delete(code);
    const missingVerifier = pkceCodes.delete(code) && req.body.code_verifier === undefined;
    if (chosen === undefined || missingVerifier || response.body === '' || typeof response.body.access_token !== 'string') {
      response.statusCode = 400;
      response.body = { error: 'invalid_grant', error_description: 'Unknown or used authorization code.' };
      return;
    }
    byToken.set(response.body.access_token, chosen);
  });

  const bearer = (req: IncomingMessage): DevIdentity | undefined => {
    const match = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? '');
    return match?.[1] === undefined ? undefined : byToken.get(match[1]);
  };

  service.on(Events.BeforeUserinfo, (response: MutableResponse, req: IncomingMessage) => {
    const who = bearer(req);
    if (who === undefined) {
      response.statusCode = 401;
      response.body = { error: 'invalid_token' };
      return;
    }
    response.body = {
      sub: who.subject,
      name: who.name,
      ...(who.email === null ? {} : { email: who.email, email_verified: who.emailVerified }),
    };
  });

  const sendJson = (res: ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  service.addRoute('GET', '/github/user', (req, res) => {
    const who = bearer(req);
    if (who === undefined) {
      sendJson(res, 401, { message: 'Bad credentials' });
      return;
    }
    const login = (who.email?.split('@')[0] ?? `user${who.subject}`).replace(/[^A-Za-z0-9-]/g, '-');
    sendJson(res, 200, { id: /^\d+$/.test(who.subject) ? Number(who.subject) : who.subject, login, name: who.name, email: null });
  });

  service.addRoute('GET', '/github/user/emails', (req, res) => {
    const who = bearer(req);
    if (who === undefined) {
      sendJson(res, 401, { message: 'Bad credentials' });
      return;
    }
    sendJson(res, 200, who.email === null ? [] : [{ email: who.email, primary: true, verified: who.emailVerified, visibility: 'private' }]);
  });

  // Control endpoints for a developer at a terminal (the tests call the functions directly).
  service.addRoute('GET', '/_dev/identity', (_req, res) => sendJson(res, 200, identity));
  service.addRoute('PUT', '/_dev/identity', (req, res) => {
    const parsed = parseIdentity(req.body);
    if (parsed === undefined) {
      sendJson(res, 422, { error: 'expected {subject, email, emailVerified, name}' });
      return;
    }
    identity = parsed;
    sendJson(res, 200, identity);
  });
  service.addRoute('POST', '/_dev/deny-next', (_req, res) => {
    denyNext = true;
    sendJson(res, 200, { deny_next: true });
  });

  const host = options.host ?? '127.0.0.1';
  await server.start(options.port ?? 0, host);
  // The mock names itself `localhost`, which may resolve to ::1 while it listens on 127.0.0.1 only.
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${server.address().port}`;
  server.issuer.url = url;
  return {
    url,
    env: {
      OAUTH_GITHUB_CLIENT_ID: DEV_CLIENT_ID,
      OAUTH_GITHUB_CLIENT_SECRET: DEV_CLIENT_SECRET,
      OAUTH_GITHUB_AUTHORIZE_URL: `${url}/authorize`,
      OAUTH_GITHUB_TOKEN_URL: `${url}/token`,
      OAUTH_GITHUB_API_URL: `${url}/github`,
      OAUTH_GOOGLE_CLIENT_ID: DEV_CLIENT_ID,
      OAUTH_GOOGLE_CLIENT_SECRET: DEV_CLIENT_SECRET,
      OAUTH_GOOGLE_AUTHORIZE_URL: `${url}/authorize`,
      OAUTH_GOOGLE_TOKEN_URL: `${url}/token`,
      OAUTH_GOOGLE_USERINFO_URL: `${url}/userinfo`,
    },
    setIdentity: (next) => {
      identity = next;
    },
    setOutcomeForState: (state, outcome) => {
      byState.set(state, outcome);
    },
    denyNext: () => {
      denyNext = true;
    },
    stop: () => server.stop(),
  };
};

const parseIdentity = (body: unknown): DevIdentity | undefined => {
  if (body === null || typeof body !== 'object') {
    return undefined;
  }
  const { subject, email, emailVerified, name } = body as Record<string, unknown>;
  if (typeof subject !== 'string' || subject === '' || typeof name !== 'string' || (email !== null && typeof email !== 'string')) {
    return undefined;
  }
  return { subject, email, emailVerified: emailVerified === true, name };
};
