/** The service could not be reached, or the connection broke before a whole answer arrived. */
export class BssConnectionError extends Error {
  override readonly name = 'BssConnectionError';
  readonly url: string;
  /** `unreachable`: no answer at all; `cut_short`: the answer's body ended before its end. */
  readonly kind: 'unreachable' | 'cut_short';

  constructor(url: string, cause: unknown, kind: 'unreachable' | 'cut_short' = 'unreachable') {
    // fetch reports "fetch failed" and hides the reason (ECONNREFUSED, …) in its cause: surface it.
    const reason = cause instanceof Error ? ((cause.cause as Error | undefined)?.message ?? cause.message) : String(cause);
    super(`${kind === 'unreachable' ? 'cannot reach' : 'the body was cut short from'} ${url}: ${reason}`, { cause });
    this.url = url;
    this.kind = kind;
  }
}
