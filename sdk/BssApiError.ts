/**
 * An answer of the API that is not a success, typed from the error envelope
 * `{"error":{"message","status_code","details":{"code",...},"request_id"}}`. Callers branch on `code`
 * (stable, snake_case), never on `message`.
 */
export class BssApiError extends Error {
  override readonly name = 'BssApiError';
  readonly status: number;
  /** `error.details.code`, or `unexpected_response` when the body is not the envelope (a proxy's page). */
  readonly code: string;
  /** `error.request_id`, else the `X-Request-ID` header: quote it when reporting a problem. */
  readonly requestId: string | undefined;
  /** `error.details` beyond `code` (`limit`, `retry_after`, `issues`, …). */
  readonly details: Readonly<Record<string, unknown>>;

  constructor(init: { message: string; status: number; code: string; requestId?: string | undefined; details?: Record<string, unknown> }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.details = init.details ?? {};
  }

  /** From a response and its body, parsed as JSON when it was JSON (openapi-fetch's `error`). */
  static fromResponse(response: Response, body: unknown): BssApiError {
    const headerId = response.headers.get('x-request-id') ?? undefined;
    const envelope = typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined;
    if (typeof envelope === 'object' && envelope !== null) {
      const { message, details, request_id: requestId } = envelope as { message?: unknown; details?: unknown; request_id?: unknown };
      const detailObject = typeof details === 'object' && details !== null ? (details as Record<string, unknown>) : {};
      if (typeof message === 'string' && typeof detailObject.code === 'string') {
        return new BssApiError({
          message,
          status: response.status,
          code: detailObject.code,
          requestId: typeof requestId === 'string' ? requestId : headerId,
          details: detailObject,
        });
      }
    }
    return new BssApiError({
      message: `unexpected HTTP ${response.status} ${response.statusText}`.trim(),
      status: response.status,
      code: 'unexpected_response',
      requestId: headerId,
    });
  }
}
