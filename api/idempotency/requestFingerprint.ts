import { createHash } from 'node:crypto';

type Step = { readonly value: unknown } | { readonly text: string };

const byKey = ([a]: [string, unknown], [b]: [string, unknown]): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * JSON with every object's keys sorted, so two bodies equal by value serialize alike. Walked with a stack
 * of its own rather than by recursion: a body's depth is the client's choice, and the call stack's size
 * is not (the body reader refuses deep bodies too; this holds even without it).
 */
const canonicalJson = (root: unknown): string => {
  const parts: string[] = [];
  // Popped from the end, so each container pushes its closing text first and its first item last.
  const steps: Step[] = [{ value: root }];
  for (let step = steps.pop(); step !== undefined; step = steps.pop()) {
    if ('text' in step) {
      parts.push(step.text);
      continue;
    }
    const { value } = step;
    if (Array.isArray(value)) {
      steps.push({ text: ']' });
      for (let index = value.length - 1; index >= 0; index -= 1) {
        steps.push({ value: value[index] as unknown });
        if (index > 0) {
          steps.push({ text: ',' });
        }
      }
      steps.push({ text: '[' });
    } else if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value).sort(byKey);
      steps.push({ text: '}' });
      for (let index = entries.length - 1; index >= 0; index -= 1) {
        const [key, item] = entries[index] as [string, unknown];
        steps.push({ value: item }, { text: `${JSON.stringify(key)}:` });
        if (index > 0) {
          steps.push({ text: ',' });
        }
      }
      steps.push({ text: '{' });
    } else {
      parts.push(JSON.stringify(value) ?? 'null');
    }
  }
  return parts.join('');
};

/**
 * What makes a retry "the same request" (docs/api.md#safe-retries-idempotency-key): method, path, the body
 * compared by value (key order and whitespace do not matter) and Accept, which picks the answer's format. NUL
 * separators keep the parts from running into each other.
 */
export const requestFingerprint = (input: { method: string; path: string; body: unknown; accept: string }): Buffer =>
  createHash('sha256')
    .update(`${input.method}\u0000${input.path}\u0000${input.body === undefined ? '' : canonicalJson(input.body)}\u0000${input.accept}`)
    .digest();
