import { BssApiError } from './BssApiError.ts';
import { BssConnectionError } from './BssConnectionError.ts';

export interface RecordsDownload {
  readonly response: Response;
  /** The strong ETag that guards the resumes; undefined when the service sent none (no resume then). */
  readonly etag: string | undefined;
  /** The body's length when the service stated it. */
  readonly total: number | undefined;
  /** The body's bytes, resumed where they stopped after a cut connection. Read once. */
  readonly bytes: AsyncIterable<Uint8Array>;
  /** How many times a cut connection was resumed so far. */
  readonly resumes: () => number;
}

const CONTENT_RANGE = /^bytes (\d+)-(\d+)\/(\d+|\*)$/;

/**
 * GETs a completed run's records (`…/records` or a download link) and resumes a connection cut mid-body
 * with `Range: bytes=<received>-` guarded by `If-Range: <ETag>`, at most `maxResumes` times. Asks for
 * identity coding: Range counts bytes of the coding sent, and fetch decodes what it receives, so offsets
 * are only the caller's own with uncoded bytes. A resume answered 200 (the body changed) or with a slice
 * other than the one asked for throws rather than splice two bodies.
 */
export const downloadRecords = async (
  fetchResponse: (headers: Record<string, string>) => Promise<Response>,
  options: { readonly accept?: string; readonly maxResumes?: number; readonly signal?: AbortSignal } = {},
): Promise<RecordsDownload> => {
  const base: Record<string, string> = { 'Accept-Encoding': 'identity', ...(options.accept === undefined ? {} : { Accept: options.accept }) };
  const first = await fetchResponse(base);
  if (first.status !== 200 || first.body === null) {
    throw BssApiError.fromResponse(first, await first.json().catch(() => undefined));
  }
  const etag = first.headers.get('etag') ?? undefined;
  const strong = etag !== undefined && etag.startsWith('"') ? etag : undefined;
  const length = first.headers.get('content-length');
  const total = length === null ? undefined : Number(length);
  const maxResumes = options.maxResumes ?? 5;
  let resumes = 0;

  const bytes = async function* (): AsyncGenerator<Uint8Array> {
    let received = 0;
    let body: ReadableStream<Uint8Array> = first.body!;
    for (;;) {
      try {
        for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
          received += chunk.length;
          yield chunk;
        }
        if (total !== undefined && received !== total) {
          throw new Error(`${received} of ${total} bytes arrived`);
        }
        return;
      } catch (error) {
        if (options.signal?.aborted) {
          throw error;
        }
        if (strong === undefined || resumes >= maxResumes) {
          throw new BssConnectionError(first.url, error, 'cut_short');
        }
      }
      resumes += 1;
      const next = await fetchResponse({ ...base, Range: `bytes=${received}-`, 'If-Range': strong });
      const range = CONTENT_RANGE.exec(next.headers.get('content-range') ?? '');
      if (next.status !== 206 || range === null || Number(range[1]) !== received || next.body === null) {
        await next.body?.cancel();
        throw new BssConnectionError(first.url, new Error(`the resumed answer was ${next.status}, not bytes ${received}- of the same body`), 'cut_short');
      }
      body = next.body;
    }
  };
  return { response: first, etag: strong, total, bytes: bytes(), resumes: () => resumes };
};
