export type ErrorDetails = Readonly<Record<string, unknown>>;

/**
 * An error the client is meant to see: its `status`, stable snake_case `code`, case-specific `details`
 * and any headers (Retry-After, Allow, WWW-Authenticate) travel together so that one renderer can
 * produce the specification's envelope without knowing any case.
 */
export class AppError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: ErrorDetails;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    status: number,
    code: string,
    message: string,
    options: { details?: ErrorDetails; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.status = status;
    this.code = code;
    this.details = options.details ?? {};
    this.headers = options.headers ?? {};
  }
}
