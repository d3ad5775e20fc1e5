import { byteChunk } from './byteChunk.ts';
import type { ByteChunk } from './byteChunk.ts';
import type { TextFormat } from './outputFormat.ts';
import type { EngineModel } from './simulator.ts';

export const KIND_INTEGER = 0;
export const KIND_DECIMAL = 1;
export const KIND_ENUM = 2;
/** An account model's number: the double itself, NaN for null. */
export const KIND_FLOAT = 3;
/** An account model's integer: NaN for null. */
const KIND_NULLABLE_INTEGER = 4;
/** An account model's number rounded to 1..8 decimals: the double itself, NaN for null. */
export const KIND_ROUNDED = 5;

/**
 * A preset's record pre-encoded for the byte writer: every constant byte of a record (keys, quotes,
 * separators) sits in a few chunks, so printing a record is a handful of word copies plus the numbers.
 * After field j's value comes `after[j]`: the next key (`,"name":`, with the opening quote if the next
 * value is a string) or the closing brace. Strings are stored with their closing quote and `after`
 * appended, one copy each.
 */
export interface RecordLayout {
  readonly firstHead: ByteChunk;
  readonly nextHead: ByteChunk;
  readonly kinds: Int32Array;
  readonly decimals: Int32Array;
  readonly after: readonly ByteChunk[];
  readonly enumChunks: readonly (readonly ByteChunk[])[];
  /** What a nullable enum field prints for slot -1 (`null`, or nothing in CSV), with `after`; empty otherwise. */
  readonly nullChunks: readonly ByteChunk[];
  /** Upper bound of one record's bytes, with its separating comma and the writers' 4-byte overshoot. */
  readonly maxRecordBytes: number;
}

// Keyed by the model itself, then the format: each engine version has its own model objects for a preset.
const layouts = new Map<EngineModel, Map<TextFormat, RecordLayout>>();

// What surrounds the values in each format. JSON and NDJSON print the same object per record (NDJSON
// without the array's commas, a newline after each); CSV prints bare values (names and enum values are
// plain identifiers, so RFC 4180 needs no quoting) and ends each row with CRLF.
const SYNTAX: Readonly<Record<TextFormat, { readonly keyed: boolean; readonly firstHead: string; readonly nextHead: string; readonly end: string }>> = {
  json: { keyed: true, firstHead: '{', nextHead: ',{', end: '}' },
  ndjson: { keyed: true, firstHead: '{', nextHead: '{', end: '}\n' },
  csv: { keyed: false, firstHead: '', nextHead: '', end: '\r\n' },
};

// Names are plain identifiers, so they need no JSON escaping and are one byte per char. Enum values of
// presets are too; an account model's string values may be any text, escaped here once per model.
const PLAIN = /^[A-Za-z0-9_]+$/;

function escapeValue(value: string, keyed: boolean): string {
  if (PLAIN.test(value)) return value;
  if (keyed) return JSON.stringify(value).slice(1, -1);
  // RFC 4180: a field holding a comma, a quote or a line break is quoted, its quotes doubled.
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

function buildLayout(model: EngineModel, format: TextFormat): RecordLayout {
  const syntax = SYNTAX[format];
  const fields = model.fields;
  const first = fields[0];
  if (first === undefined || first.kind === 'enum') throw new Error('a record starts with a numeric field');
  for (const field of fields) {
    if (!PLAIN.test(field.name)) throw new Error(`not a plain identifier: ${field.name}`);
    if (field.kind === 'decimal' && !(field.decimals >= 1 && field.decimals <= 8)) {
      throw new Error(`${field.name}: decimals must be 1..8`);
    }
  }
  const keyOf = (j: number): string => {
    const field = fields[j]!;
    // A nullable string opens its own quote (its value may be a bare null); others open it in the key.
    return syntax.keyed ? `"${field.name}":${field.kind === 'enum' && field.nullable !== true ? '"' : ''}` : '';
  };
  const closeQuote = syntax.keyed ? '"' : '';
  const openQuoteOf = (j: number): string => (syntax.keyed && fields[j]!.nullable === true ? '"' : '');
  const after = fields.map((_, j) => (j + 1 < fields.length ? `,${keyOf(j + 1)}` : syntax.end));
  let maxRecordBytes = 2 + keyOf(0).length + 4;
  const enumChunks = fields.map((field, j) => {
    const suffix = after[j]!;
    if (field.kind === 'enum') {
      const longest = Math.max(0, ...field.values.map((value) => Buffer.byteLength(escapeValue(value, syntax.keyed))));
      // A nullable field also opens its quote, or prints `null` instead.
      maxRecordBytes += (field.nullable === true ? Math.max(4, longest + 1) : longest) + 1 + suffix.length;
    } else if (field.kind === 'float' || field.nullable === true) {
      // The longest shortest-round-trip double (`-1.2345678901234567e-308`), or `null`.
      maxRecordBytes += 25 + suffix.length;
    } else {
      // A sign and the 16 digits of a safe integer, plus the point and the fraction's digits.
      maxRecordBytes += 17 + (field.kind === 'decimal' ? 1 + field.decimals : 0) + suffix.length;
    }
    return field.values.map((value) => byteChunk(`${openQuoteOf(j)}${escapeValue(value, syntax.keyed)}${closeQuote}${suffix}`));
  });
  const nullChunks = fields.map((field, j) =>
    byteChunk(field.nullable === true ? `${syntax.keyed ? 'null' : ''}${after[j]!}` : ''),
  );
  return {
    firstHead: byteChunk(`${syntax.firstHead}${keyOf(0)}`),
    nextHead: byteChunk(`${syntax.nextHead}${keyOf(0)}`),
    kinds: Int32Array.from(fields, (f) =>
      f.kind === 'integer' ? (f.nullable === true ? KIND_NULLABLE_INTEGER : KIND_INTEGER)
      : f.kind === 'decimal' ? KIND_DECIMAL
      : f.kind === 'float' ? (f.decimals >= 1 && f.decimals <= 8 ? KIND_ROUNDED : KIND_FLOAT)
      : KIND_ENUM,
    ),
    decimals: Int32Array.from(fields, (f) => f.decimals),
    after: after.map(byteChunk),
    enumChunks,
    nullChunks,
    maxRecordBytes,
  };
}

export function recordLayout(model: EngineModel, format: TextFormat = 'json'): RecordLayout {
  let byFormat = layouts.get(model);
  if (byFormat === undefined) {
    byFormat = new Map();
    layouts.set(model, byFormat);
  }
  let layout = byFormat.get(format);
  if (layout === undefined) {
    layout = buildLayout(model, format);
    byFormat.set(format, layout);
  }
  return layout;
}
