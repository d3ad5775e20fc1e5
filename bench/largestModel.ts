// The largest definition the language allows, every limit at its maximum (docs/models.md#the-definition): 64
// states, 64 fields, 64 variables, 16 profiles of 64 params, 16 event types, max_steps 100,000, expressions of
// 1,000 characters nested as deep as that allows, within the 64 KiB a definition may hold. The bench's
// compile-time row and the hostile-definition test (test/models/hostileDefinition.test.ts) share it.

const STATES = 64;
const PARAMS = 64;
const PROFILES = 16;
const VARIABLES = 64;
const FIELDS = 64;
const EVENTS = 16;
const EXPRESSION_CHARS = 1000;

/** Parentheses nested as deep as 1,000 characters allow, around one param. */
function deepParentheses(): string {
  const depth = Math.floor((EXPRESSION_CHARS - 2) / 2);
  return `${'('.repeat(depth)}a1${')'.repeat(depth)}`;
}

/** Conditionals nested in their alternates, up to 1,000 characters. */
function deepConditionals(): string {
  let text = '0';
  for (let i = 0; ; i++) {
    const next = `step > ${i} ? ${i} : (${text})`;
    if (next.length > EXPRESSION_CHARS) return text;
    text = next;
  }
}

/** As many random call sites as 1,000 characters hold. */
function manyDraws(): string {
  const terms: string[] = [];
  while ([...terms, 'normal(0, 1)'].join('+').length <= EXPRESSION_CHARS) terms.push('normal(0, 1)');
  return terms.join('+');
}

/** Unary minus and '!' stacked to the length limit. */
function deepUnary(): string {
  return `${'-'.repeat(EXPRESSION_CHARS - 2)}a1`;
}

export function largestModelDefinition(): Record<string, unknown> {
  const states = Array.from({ length: STATES }, (_, i) => `S${i}`);
  // Param names a prototype has: they must resolve to slots like any other name.
  const params = ['constructor', 'prototype', ...Array.from({ length: PARAMS - 2 }, (_, i) => `a${i}`)];
  const profiles = Object.fromEntries(
    Array.from({ length: PROFILES }, (_, p) => [`profile${p}`, Object.fromEntries(params.map((name, i) => [name, (i % 7) / 10 + p / 100]))]),
  );
  const variables = Array.from({ length: VARIABLES }, (_, i) => ({
    name: `v${i}`,
    initial: i === 0 ? 'a0' : `v${i - 1} + a${i % 60}`,
    next: `0.9 * v${i} + normal(0, a${i % 60}) + (v${(i + 1) % VARIABLES} > 1 ? 1 : 0)`,
  }));
  const transitions = Object.fromEntries(states.slice(0, -1).map((s, i) => [s, { [states[i + 1]!]: `a${i % 60} / 50`, [states[(i + 9) % (STATES - 1)]!]: 0.01 }]));
  const special = [deepParentheses(), deepConditionals(), manyDraws(), deepUnary()];
  const fields = Array.from({ length: FIELDS }, (_, i) => {
    if (i < special.length) return { name: `f${i}`, type: 'number', value: special[i]! };
    if (i % 3 === 0) return { name: `f${i}`, type: 'string', value: `f${i - 1} > 0 ? choice(['x', 'y', 'z'], [a1, a2, a3]) : prev_state` };
    if (i % 3 === 1) return { name: `f${i}`, type: 'integer', value: `poisson(abs(v${i}) + 1) + f${i - 2}` };
    return { name: `f${i}`, type: 'number', decimals: 3, value: `clamp(f${i - 1} + v${i} * constructor + prototype, -1e6, 1e6)` };
  });
  const events = Array.from({ length: EVENTS }, (_, e) => ({
    type: `event${e}`,
    description: `event ${e}`,
    set: Object.fromEntries(Array.from({ length: 4 }, (_, k) => [`a${(e * 4 + k) % 60}`, `a${(e * 4 + k) % 60} * (1 + intensity)`])),
    ...(e % 2 === 0 ? { enter: states[e * 3]! } : {}),
  }));
  return {
    description: 'The largest definition the language allows: every limit at its maximum.',
    states,
    initial: { S0: 1, S1: 'a1' },
    terminal: ['S63'],
    max_steps: 100_000,
    profiles,
    variables,
    transitions,
    fields,
    events,
    clock: { step_seconds: 'exponential(1 / 60)', start_offset_seconds: 0 },
  };
}
