/**
 * The content codings of JSON, NDJSON and CSV answers (docs/bulk-data.md#compression), in the server's order of
 * preference.
 */
const CONTENT_CODINGS = ['zstd', 'br', 'gzip'] as const;

export type ContentCoding = (typeof CONTENT_CODINGS)[number] | 'identity';

interface CodingRange {
  readonly coding: string;
  readonly q: number;
}

const parseAcceptEncoding = (header: string): CodingRange[] =>
  header.split(',').flatMap((part) => {
    const [name = '', ...params] = part.split(';').map((piece) => piece.trim());
    if (name === '') {
      return [];
    }
    let q = 1;
    for (const param of params) {
      const [key, value] = param.split('=').map((piece) => piece.trim());
      if (key?.toLowerCase() === 'q') {
        const parsed = Number(value);
        q = Number.isFinite(parsed) ? Math.min(1, Math.max(0, parsed)) : 0;
      }
    }
    return [{ coding: name.toLowerCase(), q }];
  });

/**
 * The coding an Accept-Encoding header asks for (RFC 9110 §12.5.3): each coding takes the quality of its
 * own entry, else of `*`; the highest quality above 0 wins, ties going to the server's order (zstd, br,
 * gzip, then identity). `identity` unlisted is acceptable at the lowest quality the header lists (so
 * `gzip;q=0.5` still compresses), unless `*;q=0` excludes it. Absent or empty → identity, and identity
 * too when the header excludes everything: a server may always answer uncoded rather than 406.
 */
export const chooseEncoding = (header: string | undefined): ContentCoding => {
  if (header === undefined || header.trim() === '') {
    return 'identity';
  }
  const ranges = parseAcceptEncoding(header);
  const wildcard = ranges.find((range) => range.coding === '*')?.q;
  const qualityOf = (coding: string): number | undefined => ranges.find((range) => range.coding === coding)?.q ?? wildcard;
  const lowest = Math.min(...ranges.map((range) => range.q).filter((q) => q > 0), 1);
  const identity = qualityOf('identity') ?? lowest;
  const candidates: readonly (readonly [ContentCoding, number])[] = [
    ...CONTENT_CODINGS.map((coding) => [coding, qualityOf(coding) ?? 0] as const),
    ['identity', identity],
  ];
  let best: { coding: ContentCoding; q: number } = { coding: 'identity', q: 0 };
  for (const [coding, q] of candidates) {
    if (q > best.q) {
      best = { coding, q };
    }
  }
  return best.coding;
};
