import type { Config } from '../../shared/config.ts';
import { createCookieCipher, type CookieCipher } from '../../shared/auth/cookieCipher.ts';

export const SESSION_COOKIE_NAME = 'service_session';
/** The session record and its cookie live exactly as long: 7 days. */
export const SESSION_MAX_AGE_SECONDS = 604_800;

const ciphers = new WeakMap<Config, CookieCipher>();

// One derived key per configuration object, so HKDF runs once per process, not per request.
const cipherFor = (config: Config): CookieCipher => {
  let cipher = ciphers.get(config);
  if (cipher === undefined) {
    cipher = createCookieCipher(config.sessionSecret, `${SESSION_COOKIE_NAME} v1`);
    ciphers.set(config, cipher);
  }
  return cipher;
};

/** The cookie value for a session id: the id's 16 bytes, encrypted and authenticated. */
export const sealSessionId = (config: Config, sessionId: string): string =>
  cipherFor(config).seal(Buffer.from(sessionId.replaceAll('-', ''), 'hex'));

/** The session id inside a cookie value, or undefined when the value is not one this server sealed. */
export const openSessionId = (config: Config, sealed: string): string | undefined => {
  const bytes = cipherFor(config).open(sealed);
  if (bytes === undefined || bytes.length !== 16) {
    return undefined;
  }
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

// Written by hand rather than through ctx.cookies: the `cookies` module emits Expires but never Max-Age,
// and refuses a Secure cookie when TLS ends at a proxy in front of the service.
const attributes = (config: Config, maxAge: number): string =>
  `Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${config.isProduction ? '; Secure' : ''}`;

export const serializeSessionCookie = (config: Config, sealed: string): string =>
  `${SESSION_COOKIE_NAME}=${sealed}; ${attributes(config, SESSION_MAX_AGE_SECONDS)}`;

export const serializeClearedSessionCookie = (config: Config): string =>
  `${SESSION_COOKIE_NAME}=; ${attributes(config, 0)}`;
