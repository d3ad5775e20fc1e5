/** A single byte range as Range states it (RFC 9110 §14.1.2), before the body's length is known. */
export type ByteRange = { readonly kind: 'from'; readonly first: number; readonly last?: number } | { readonly kind: 'suffix'; readonly length: number };

const SINGLE_RANGE = /^bytes=(?:(\d{1,15})-(\d{1,15})?|-(\d{1,15}))$/;

/**
 * The one byte range a Range header asks for, or undefined to answer the whole body: absent, malformed, a
 * unit other than bytes, or several ranges (a server may ignore Range; one multipart answer per request is
 * not worth its cost here). `N-M` with M < N is malformed, so ignored too.
 */
export const parseRange = (header: string | undefined): ByteRange | undefined => {
  const match = SINGLE_RANGE.exec((header ?? '').trim().replace(/\s+/g, ''));
  if (match === null) {
    return undefined;
  }
  const [, first, last, suffix] = match;
  if (suffix !== undefined) {
    return { kind: 'suffix', length: Number(suffix) };
  }
  if (last !== undefined && Number(last) < Number(first)) {
    return undefined;
  }
  return { kind: 'from', first: Number(first), ...(last === undefined ? {} : { last: Number(last) }) };
};

/** The range's inclusive offsets within a body of `total` bytes, or undefined when none of them exists (416). */
export const resolveRange = (range: ByteRange, total: number): { readonly first: number; readonly last: number } | undefined => {
  if (range.kind === 'suffix') {
    return range.length === 0 || total === 0 ? undefined : { first: Math.max(total - range.length, 0), last: total - 1 };
  }
  if (range.first >= total) {
    return undefined;
  }
  return { first: range.first, last: Math.min(range.last ?? total - 1, total - 1) };
};
