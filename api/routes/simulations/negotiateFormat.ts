import type { ParameterizedContext } from 'koa';
import type { OutputFormat } from '../../../shared/engine/index.ts';
import { notAcceptable } from '../../../shared/errors/errors.ts';

// Each format's media type as Accept names it, in the server's order of preference (ties go to the
// first): Parquet last, so a wildcard range alone (any type, or application/ any) keeps answering JSON and
// a binary file comes only to a client that names it or refuses every text format.
const FORMAT_MEDIA_TYPES: Readonly<Record<OutputFormat, string>> = {
  json: 'application/json',
  ndjson: 'application/x-ndjson',
  csv: 'text/csv',
  parquet: 'application/vnd.apache.parquet',
};

const SUPPORTED = Object.values(FORMAT_MEDIA_TYPES);

interface MediaRange {
  readonly type: string;
  readonly subtype: string;
  readonly q: number;
}

const parseAccept = (accept: string): MediaRange[] =>
  accept.split(',').flatMap((part) => {
    const [range = '', ...params] = part.split(';').map((piece) => piece.trim());
    const [type, subtype] = range.toLowerCase().split('/');
    if (type === undefined || subtype === undefined || type === '' || subtype === '') {
      return [];
    }
    let q = 1;
    for (const param of params) {
      const [name, value] = param.split('=').map((piece) => piece.trim());
      if (name?.toLowerCase() === 'q') {
        const parsed = Number(value);
        q = Number.isFinite(parsed) ? Math.min(1, Math.max(0, parsed)) : 0;
      }
    }
    return [{ type, subtype, q }];
  });

/**
 * The format an Accept header asks for (RFC 9110 §12.5.1): each format takes the quality of the most
 * specific range that matches it (`text/csv` over `text/*` over the any-type range); the highest quality above 0 wins,
 * ties going to the server's order (JSON first). Absent or empty → JSON; undefined when nothing fits.
 */
const chooseFormat = (accept: string | undefined): OutputFormat | undefined => {
  if (accept === undefined || accept.trim() === '') {
    return 'json';
  }
  const ranges = parseAccept(accept);
  let best: { format: OutputFormat; q: number } | undefined;
  for (const [format, mediaType] of Object.entries(FORMAT_MEDIA_TYPES) as [OutputFormat, string][]) {
    const [type, subtype] = mediaType.split('/');
    let match: { specificity: number; q: number } | undefined;
    for (const range of ranges) {
      const specificity =
        range.type === type && range.subtype === subtype ? 2
        : range.type === type && range.subtype === '*' ? 1
        : range.type === '*' && range.subtype === '*' ? 0
        : -1;
      if (specificity >= 0 && (match === undefined || specificity > match.specificity)) {
        match = { specificity, q: range.q };
      }
    }
    if (match !== undefined && match.q > 0 && (best === undefined || match.q > best.q)) {
      best = { format, q: match.q };
    }
  }
  return best?.format;
};

/**
 * The response format the request's Accept asks for, or 406 `not_acceptable`. A route decides it before the
 * limits run, so a 406 is never counted by the rate limiter.
 */
export const negotiateFormat = (ctx: ParameterizedContext): OutputFormat => {
  const format = chooseFormat(ctx.get('Accept') || undefined);
  if (format === undefined) {
    throw notAcceptable(SUPPORTED);
  }
  return format;
};
