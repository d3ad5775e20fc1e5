/**
 * The `?error=` codes a failed login lands on at `{FRONTEND_URL}/account`; the frontend can show a
 * message per code. Stable: the frontend depends on them.
 */
export type LoginErrorCode =
  | 'access_denied'
  | 'invalid_state'
  | 'provider_error'
  | 'exchange_failed'
  | 'email_unavailable'
  | 'account_disabled'
  | 'server_error';

/** A login that must end on the frontend with `?error=<code>` and no session. */
export class LoginError extends Error {
  readonly code: LoginErrorCode;

  constructor(code: LoginErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'LoginError';
    this.code = code;
  }
}
