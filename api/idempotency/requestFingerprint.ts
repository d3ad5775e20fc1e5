import { createHash } from 'node:crypto';

/** JSON with every object's keys sorted, so two bodies equal by value serialize alike. */
const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) {
    return `[${value.map(canonicalJson).join(',')}]`;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
};

/**
 * What makes a retry "the same request" (DECISIONS "Idempotent retries"): method, path, the body compared
 * by value (key order and whitespace do not matter) and Accept, which picks the answer's format. NUL
 * separators keep the parts from running into each other.
 */
export const requestFingerprint = (input: { method: string; path: string; body: unknown; accept: string }): Buffer =>
  createHash('sha256')
    .update(`${input.method}\u0000${input.path}\u0000${input.body === undefined ? '' : canonicalJson(input.body)}\u0000${input.accept}`)
    .digest();
