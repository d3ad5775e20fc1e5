/** The functions an expression may call (docs/models.md#functions). */
export interface ModelFunction {
  readonly minArgs: number;
  /** Infinity: any number from minArgs. */
  readonly maxArgs: number;
  /** Draws randomness: each call site draws independently (its own slots of the addressed generator). */
  readonly random: boolean;
  /** How the call is written, for messages. */
  readonly signature: string;
}

const fn = (minArgs: number, maxArgs: number, random: boolean, signature: string): ModelFunction => ({ minArgs, maxArgs, random, signature });

export const MODEL_FUNCTIONS: ReadonlyMap<string, ModelFunction> = new Map([
  ['abs', fn(1, 1, false, 'abs(x)')],
  ['min', fn(2, Infinity, false, 'min(a, b, ...)')],
  ['max', fn(2, Infinity, false, 'max(a, b, ...)')],
  ['clamp', fn(3, 3, false, 'clamp(x, lo, hi)')],
  ['exp', fn(1, 1, false, 'exp(x)')],
  ['log', fn(1, 1, false, 'log(x)')],
  ['sqrt', fn(1, 1, false, 'sqrt(x)')],
  ['pow', fn(2, 2, false, 'pow(x, y)')],
  ['floor', fn(1, 1, false, 'floor(x)')],
  ['ceil', fn(1, 1, false, 'ceil(x)')],
  ['round', fn(1, 2, false, 'round(x[, digits])')],
  ['uniform', fn(2, 2, true, 'uniform(a, b)')],
  ['integer', fn(2, 2, true, 'integer(a, b)')],
  ['normal', fn(2, 2, true, 'normal(mean, sd)')],
  ['lognormal', fn(2, 2, true, 'lognormal(mu, sigma)')],
  ['exponential', fn(1, 1, true, 'exponential(rate)')],
  ['gamma', fn(2, 2, true, 'gamma(shape, scale)')],
  ['beta', fn(2, 2, true, 'beta(a, b)')],
  ['poisson', fn(1, 1, true, 'poisson(lambda)')],
  ['bernoulli', fn(1, 1, true, 'bernoulli(p)')],
  ['choice', fn(2, 2, true, "choice(['a', 'b', ...], [w1, w2, ...])")],
]);

/** The identifiers the language defines itself (docs/models.md, "Identifiers"). */
export const BUILTIN_IDENTIFIERS = ['state', 'prev_state', 'step', 'sequence', 'event', 'intensity'] as const;
export type BuiltinIdentifier = (typeof BUILTIN_IDENTIFIERS)[number];

/** Names no param, variable or field may take: built-ins, functions, literals and the record's own fields. */
export const RESERVED_NAMES: ReadonlySet<string> = new Set([
  ...BUILTIN_IDENTIFIERS,
  ...MODEL_FUNCTIONS.keys(),
  'true',
  'false',
  'sequence_id',
  'interaction_id',
  'scenario_event',
  'event_time',
]);
