import { createHash } from 'node:crypto';
import type { ModelDefinition } from './modelTypes.ts';

function canonical(value: unknown, keepOrder = false): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonical(item)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    if (!keepOrder) entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The canonical JSON text of a definition: object keys sorted by code unit, no whitespace, arrays in
 * order, except the order of `profiles`, which is meaning (its first profile is the default when
 * `default_profile` is absent). No other key order is meaning: transitions and initial weights are drawn
 * in the order of `states` (docs/models.md), so two definitions with the same canonical text run the
 * same records.
 */
export function canonicalModelJson(definition: ModelDefinition): string {
  const entries = Object.entries(definition as unknown as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v, k === 'profiles')}`).join(',')}}`;
}

/** `sha256:` + hex of the canonical JSON text. */
export function modelDigest(definition: ModelDefinition): string {
  return `sha256:${createHash('sha256').update(canonicalModelJson(definition)).digest('hex')}`;
}
