import { didYouMean } from './didYouMean.ts';
import type { ExpressionScope, ScopeField, Typed, ValueType } from './expressionScope.ts';
import { type ExpressionNode, ExpressionSyntaxError } from './expressionTree.ts';
import { type BuiltinIdentifier, RESERVED_NAMES } from './modelFunctions.ts';
import { MODEL_LIMITS, MODEL_NAME_PATTERN, STATE_NAME_PATTERN } from './modelLimits.ts';
import type { ModelDefinition, ModelIssue } from './modelTypes.ts';
import { parseExpression } from './parseExpression.ts';
import { typeExpression } from './typeExpression.ts';

/** A checked expression: its tree and every node's type. */
export interface CheckedExpression {
  readonly node: ExpressionNode;
  readonly types: ReadonlyMap<ExpressionNode, Typed>;
}

/** A valid definition as the compiler reads it: names resolved to indexes, expressions parsed and typed. */
interface ModelAnalysis {
  readonly definition: ModelDefinition;
  readonly states: readonly string[];
  readonly profiles: readonly string[];
  readonly defaultProfile: string;
  readonly params: readonly string[];
  /** profile -> its params' values, in `params` order. */
  readonly profileValues: ReadonlyMap<string, readonly number[]>;
  readonly variables: readonly { readonly name: string; readonly initial: CheckedExpression; readonly next: CheckedExpression }[];
  /** A fixed first state, or weights per state (in `states` order). */
  readonly initial: number | readonly (readonly [number, CheckedExpression])[];
  readonly terminal: ReadonlySet<number>;
  /** Per state (its index), the listed next states in `states` order with their weights. */
  readonly transitions: readonly (readonly (readonly [number, CheckedExpression])[])[];
  readonly fields: readonly {
    readonly name: string;
    readonly type: 'integer' | 'number' | 'string';
    readonly decimals: number | undefined;
    readonly description: string;
    readonly value: CheckedExpression;
    /** A string field's possible values (sorted). */
    readonly values: readonly string[];
  }[];
  readonly events: readonly {
    readonly type: string;
    readonly description: string;
    readonly effect: string;
    readonly set: readonly (readonly [number, CheckedExpression])[];
    readonly enter: number | undefined;
  }[];
  readonly clock: { readonly stepSeconds: CheckedExpression; readonly startOffsetSeconds: CheckedExpression } | undefined;
}

export interface ModelAnalysisResult {
  readonly issues: ModelIssue[];
  readonly warnings: ModelIssue[];
  readonly analysis?: ModelAnalysis;
}

const MEMBERS = ['description', 'states', 'initial', 'terminal', 'max_steps', 'profiles', 'default_profile', 'variables', 'transitions', 'fields', 'events', 'clock'];
const VARIABLE_MEMBERS = ['name', 'initial', 'next'];
const FIELD_MEMBERS = ['name', 'type', 'value', 'decimals', 'description'];
const EVENT_MEMBERS = ['type', 'description', 'effect', 'set', 'enter'];
const CLOCK_MEMBERS = ['step_seconds', 'start_offset_seconds'];
const ALL_BUILTINS: readonly BuiltinIdentifier[] = ['state', 'prev_state', 'step', 'sequence', 'event', 'intensity'];

type Json = Record<string, unknown>;
const isObject = (x: unknown): x is Json => x !== null && typeof x === 'object' && !Array.isArray(x);
const at = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`);
const typeOfJson = (x: unknown): string => (x === null ? 'null' : Array.isArray(x) ? 'an array' : typeof x === 'object' ? 'an object' : `a ${typeof x}`);

/** The whole of a definition's checking (checkModelDefinition's answer, and compileModel's input). */
export function analyseModel(input: unknown): ModelAnalysisResult {
  const issues: ModelIssue[] = [];
  const warnings: ModelIssue[] = [];
  const issue = (path: string, message: string): void => {
    issues.push({ path, message });
  };
  const wrongType = (path: string, value: unknown, what: string): void => {
    issue(path, value === undefined ? `is required: ${what}` : `must be ${what}, not ${typeOfJson(value)}`);
  };

  if (!isObject(input)) {
    issue('', `a model definition is a JSON object, not ${typeOfJson(input)}`);
    return { issues, warnings };
  }
  const bytes = Buffer.byteLength(JSON.stringify(input));
  if (bytes > MODEL_LIMITS.maxDefinitionBytes) issue('', `a definition is at most ${MODEL_LIMITS.maxDefinitionBytes} bytes of JSON; this one has ${bytes}`);
  const unknownMembers = (object: Json, members: readonly string[], path: string): void => {
    for (const key of Object.keys(object)) {
      if (!members.includes(key)) issue(at(path, key), `unknown member '${key}'${didYouMean(key, members)}`);
    }
  };
  unknownMembers(input, MEMBERS, '');

  const text = (value: unknown, path: string, required: boolean, max = MODEL_LIMITS.maxDescription): string | undefined => {
    if (value === undefined) {
      if (required) issue(path, 'is required: a sentence of 1 to 500 characters');
      return undefined;
    }
    if (typeof value !== 'string') issue(path, `must be a string, not ${typeOfJson(value)}`);
    else if (value.length < 1 || value.length > max) issue(path, `must be 1 to ${max} characters long, not ${value.length}`);
    else return value;
    return undefined;
  };
  const description = text(input.description, 'description', true);

  // Names shared by params, variables and fields: one identifier means one thing.
  const takenNames = new Map<string, string>();
  const checkName = (value: unknown, path: string, what: string, pattern: RegExp, shared: boolean): string | undefined => {
    if (typeof value !== 'string') {
      issue(path, `${what} must be a string, not ${typeOfJson(value)}`);
      return undefined;
    }
    if (!pattern.test(value)) {
      issue(path, `${what} '${value}' must match ${pattern.source}: ${pattern === STATE_NAME_PATTERN ? 'a letter' : 'a lowercase letter'}, then up to 39 ${pattern === STATE_NAME_PATTERN ? 'letters' : 'lowercase letters'}, digits or '_'`);
      return undefined;
    }
    if (shared) {
      if (RESERVED_NAMES.has(value)) {
        issue(path, `${what} '${value}' is a name the language reserves (a built-in identifier, a function or a record field); choose another`);
        return undefined;
      }
      const earlier = takenNames.get(value);
      if (earlier !== undefined) {
        issue(path, `${what} '${value}' is already the name of ${earlier}; params, variables and fields need distinct names`);
        return undefined;
      }
      takenNames.set(value, `${what} at ${path}`);
    }
    return value;
  };

  // states
  const states: string[] = [];
  if (!Array.isArray(input.states)) wrongType('states', input.states, `an array of 1 to ${MODEL_LIMITS.maxStates} state names`);
  else {
    if (input.states.length < 1 || input.states.length > MODEL_LIMITS.maxStates) issue('states', `must hold 1 to ${MODEL_LIMITS.maxStates} states, not ${input.states.length}`);
    input.states.forEach((value, i) => {
      const name = checkName(value, `states[${i}]`, 'state', STATE_NAME_PATTERN, false);
      if (name === undefined) return;
      if (states.includes(name)) issue(`states[${i}]`, `state '${name}' is listed twice`);
      else states.push(name);
    });
  }
  const stateIndex = (value: string): number => states.indexOf(value);
  const knownState = (value: unknown, path: string): number | undefined => {
    if (typeof value !== 'string') {
      issue(path, `must be a state name, not ${typeOfJson(value)}`);
      return undefined;
    }
    const i = stateIndex(value);
    if (i < 0) issue(path, `unknown state '${value}'${didYouMean(value, states)}`);
    return i < 0 ? undefined : i;
  };

  // max_steps
  const maxSteps = input.max_steps;
  if (maxSteps === undefined) issue('max_steps', `is required: an integer 1 to ${MODEL_LIMITS.maxSteps}`);
  else if (!(typeof maxSteps === 'number' && Number.isInteger(maxSteps) && maxSteps >= 1 && maxSteps <= MODEL_LIMITS.maxSteps)) {
    issue('max_steps', `must be an integer 1 to ${MODEL_LIMITS.maxSteps}, not ${JSON.stringify(maxSteps)}`);
  }

  // profiles and their params
  const profiles: string[] = [];
  const params: string[] = [];
  const profileValues = new Map<string, number[]>();
  if (!isObject(input.profiles)) wrongType('profiles', input.profiles, `an object of 1 to ${MODEL_LIMITS.maxProfiles} profiles, like {"default": {"rate": 0.1}}`);
  else {
    const entries = Object.entries(input.profiles);
    if (entries.length < 1 || entries.length > MODEL_LIMITS.maxProfiles) issue('profiles', `must hold 1 to ${MODEL_LIMITS.maxProfiles} profiles, not ${entries.length}`);
    let first: string | undefined;
    for (const [name, body] of entries) {
      const path = `profiles.${name}`;
      if (checkName(name, path, 'profile', MODEL_NAME_PATTERN, false) === undefined) continue;
      if (!isObject(body)) {
        issue(path, `a profile is an object of params, like {"rate": 0.1}, not ${typeOfJson(body)}`);
        continue;
      }
      const keys = Object.keys(body);
      if (keys.length > MODEL_LIMITS.maxParams) issue(path, `a profile has at most ${MODEL_LIMITS.maxParams} params, not ${keys.length}`);
      if (first === undefined) {
        first = name;
        for (const key of keys) if (checkName(key, `${path}.${key}`, 'param', MODEL_NAME_PATTERN, true) !== undefined) params.push(key);
      } else {
        for (const key of keys) if (!params.includes(key) && MODEL_NAME_PATTERN.test(key)) issue(`${path}.${key}`, `param '${key}' is not in profile '${first}'; every profile has the same params${didYouMean(key, params)}`);
        for (const key of params) if (!Object.hasOwn(body, key)) issue(path, `profile '${name}' lacks param '${key}' that profile '${first}' has; every profile has the same params`);
      }
      const values: number[] = [];
      for (const key of keys) {
        const v = body[key];
        if (typeof v !== 'number' || !Number.isFinite(v)) issue(`${path}.${key}`, `a param's value is a number, not ${typeOfJson(v)}`);
      }
      for (const key of params) values.push(typeof body[key] === 'number' ? (body[key]) : Number.NaN);
      profiles.push(name);
      profileValues.set(name, values);
    }
  }
  let defaultProfile = profiles[0] ?? '';
  if (input.default_profile !== undefined) {
    if (typeof input.default_profile !== 'string' || !profiles.includes(input.default_profile)) {
      issue('default_profile', `unknown profile ${JSON.stringify(input.default_profile)}${typeof input.default_profile === 'string' ? didYouMean(input.default_profile, profiles) : ''}; it names one of profiles`);
    } else defaultProfile = input.default_profile;
  }

  // variables and fields: names first (an expression may name any of them), expressions after
  const variableDefs: { name: string; body: Json; path: string }[] = [];
  if (input.variables !== undefined) {
    if (!Array.isArray(input.variables)) issue('variables', `must be an array of {name, initial, next}, not ${typeOfJson(input.variables)}`);
    else {
      if (input.variables.length > MODEL_LIMITS.maxVariables) issue('variables', `holds at most ${MODEL_LIMITS.maxVariables} variables, not ${input.variables.length}`);
      input.variables.forEach((body: unknown, i) => {
        const path = `variables[${i}]`;
        if (!isObject(body)) return issue(path, `a variable is an object {name, initial, next}, not ${typeOfJson(body)}`);
        unknownMembers(body, VARIABLE_MEMBERS, path);
        for (const member of ['initial', 'next']) if (body[member] === undefined) issue(`${path}.${member}`, 'is required: a number or an expression');
        const name = checkName(body.name, `${path}.name`, 'variable', MODEL_NAME_PATTERN, true);
        if (name !== undefined) variableDefs.push({ name, body, path });
      });
    }
  }
  const fieldDefs: { name: string; type: 'integer' | 'number' | 'string'; body: Json; path: string; decimals: number | undefined; description: string }[] = [];
  if (!Array.isArray(input.fields)) wrongType('fields', input.fields, `an array of 1 to ${MODEL_LIMITS.maxFields} fields {name, type, value}`);
  else {
    if (input.fields.length < MODEL_LIMITS.minFields || input.fields.length > MODEL_LIMITS.maxFields) issue('fields', `must hold 1 to ${MODEL_LIMITS.maxFields} fields, not ${input.fields.length}`);
    input.fields.forEach((body: unknown, i) => {
      const path = `fields[${i}]`;
      if (!isObject(body)) return issue(path, `a field is an object {name, type, value}, not ${typeOfJson(body)}`);
      unknownMembers(body, FIELD_MEMBERS, path);
      const name = checkName(body.name, `${path}.name`, 'field', MODEL_NAME_PATTERN, true);
      const type = body.type;
      if (type !== 'integer' && type !== 'number' && type !== 'string') issue(`${path}.type`, `must be 'integer', 'number' or 'string', not ${JSON.stringify(type) ?? 'missing'}`);
      if (body.value === undefined) issue(`${path}.value`, 'is required: a number or an expression');
      let decimals: number | undefined;
      if (body.decimals !== undefined) {
        if (!(typeof body.decimals === 'number' && Number.isInteger(body.decimals) && body.decimals >= 0 && body.decimals <= MODEL_LIMITS.maxDecimals)) {
          issue(`${path}.decimals`, `must be an integer 0 to ${MODEL_LIMITS.maxDecimals}, not ${JSON.stringify(body.decimals)}`);
        } else if (type !== 'number') issue(`${path}.decimals`, `rounds a number field; a${type === 'integer' ? 'n integer' : ' string'} field has no decimals`);
        else decimals = body.decimals;
      }
      const fieldDescription = body.description === undefined ? '' : (text(body.description, `${path}.description`, false) ?? '');
      if (name !== undefined && (type === 'integer' || type === 'number' || type === 'string')) {
        fieldDefs.push({ name, type, body, path, decimals, description: fieldDescription });
      }
    });
  }

  // events (types first: expressions compare `event` with them)
  const eventDefs: { type: string; body: Json; path: string }[] = [];
  if (input.events !== undefined) {
    if (!Array.isArray(input.events)) issue('events', `must be an array of event types, not ${typeOfJson(input.events)}`);
    else {
      if (input.events.length > MODEL_LIMITS.maxEvents) issue('events', `holds at most ${MODEL_LIMITS.maxEvents} event types, not ${input.events.length}`);
      input.events.forEach((body: unknown, i) => {
        const path = `events[${i}]`;
        if (!isObject(body)) return issue(path, `an event type is an object {type, description, effect?, set?, enter?}, not ${typeOfJson(body)}`);
        unknownMembers(body, EVENT_MEMBERS, path);
        const type = checkName(body.type, `${path}.type`, 'event type', MODEL_NAME_PATTERN, false);
        if (type === undefined) return;
        if (eventDefs.some((e) => e.type === type)) return issue(`${path}.type`, `event type '${type}' is listed twice`);
        eventDefs.push({ type, body, path });
      });
    }
  }
  const eventTypes = eventDefs.map((e) => e.type);

  // expressions
  const usedParams = new Set<string>();
  const paramIndex = new Map(params.map((p, i) => [p, i]));
  const variableIndex = new Map(variableDefs.map((v, i) => [v.name, i]));
  const scopeFields = new Map<string, ScopeField>(fieldDefs.map((f, i) => [f.name, { index: i, type: f.type }]));
  const scope = (place: string, builtins: readonly BuiltinIdentifier[], variablesBefore: number, variablesNote: string, fieldsBefore = 0): ExpressionScope => ({
    place,
    params: paramIndex,
    variables: variableIndex,
    variablesBefore,
    variablesNote,
    fields: scopeFields,
    fieldsBefore,
    builtins: new Set(builtins),
    states,
    eventTypes,
    usedParams,
  });
  const expression = (source: unknown, path: string, want: ValueType, s: ExpressionScope): CheckedExpression | undefined => {
    let node: ExpressionNode;
    // A missing member was reported as required where its object was checked.
    if (source === undefined) return undefined;
    if (typeof source === 'number') {
      if (want !== 'number') {
        issue(path, `must be a ${want} expression, like 'text' in single quotes, not a number`);
        return undefined;
      }
      node = { kind: 'number', value: source, start: 0, end: 0 };
    } else if (typeof source === 'string') {
      if (source.length > MODEL_LIMITS.maxExpressionChars) {
        issue(path, `an expression is at most ${MODEL_LIMITS.maxExpressionChars} characters, not ${source.length}`);
        return undefined;
      }
      try {
        node = parseExpression(source);
      } catch (error) {
        if (!(error instanceof ExpressionSyntaxError)) throw error;
        issue(path, `${error.message} (at character ${error.position + 1})`);
        return undefined;
      }
    } else {
      issue(path, `must be a number or an expression in a string, not ${typeOfJson(source)}`);
      return undefined;
    }
    const before = issues.length;
    const types = new Map<ExpressionNode, Typed>();
    const typed = typeExpression(node, s, (message, n) => issue(path, typeof source === 'string' ? `${message} (at character ${n.start + 1})` : message), types);
    if (typed !== undefined && typed.type !== want) {
      const hint = want === 'number' && typed.type === 'boolean' ? ' (write cond ? 1 : 0)' : want === 'string' ? " (a string field's value is a string expression, like 'text')" : '';
      issue(path, `${s.place} must be ${describeType(want)}, not ${describeType(typed.type)}${hint}`);
    }
    return issues.length === before ? { node, types } : undefined;
  };

  // initial
  let initial: number | (readonly [number, CheckedExpression])[] | undefined;
  const weightScope = scope('an initial weight', ['step', 'sequence', 'event', 'intensity'], 0, 'variables take their initial values after the first state is drawn');
  if (typeof input.initial === 'string') initial = knownState(input.initial, 'initial');
  else if (isObject(input.initial)) {
    const weights: [number, CheckedExpression][] = [];
    const keys = Object.keys(input.initial);
    if (keys.length === 0) issue('initial', 'lists at least one state with its weight');
    for (const key of keys) {
      const i = knownState(key, `initial.${key}`);
      const checked = expression(input.initial[key], `initial.${key}`, 'number', weightScope);
      if (i !== undefined && checked !== undefined) weights.push([i, checked]);
    }
    initial = weights.sort((a, b) => a[0] - b[0]);
  } else wrongType('initial', input.initial, 'a state name, or {state: weight}');

  // terminal
  const terminal = new Set<number>();
  if (input.terminal !== undefined) {
    if (!Array.isArray(input.terminal)) issue('terminal', `must be an array of state names, not ${typeOfJson(input.terminal)}`);
    else
      input.terminal.forEach((value, i) => {
        const s = knownState(value, `terminal[${i}]`);
        if (s === undefined) return;
        if (terminal.has(s)) issue(`terminal[${i}]`, `state '${states[s]!}' is listed twice`);
        terminal.add(s);
      });
  }

  // variables' expressions
  const variables: { name: string; initial: CheckedExpression; next: CheckedExpression }[] = [];
  variableDefs.forEach((v, i) => {
    const init = expression(v.body.initial, `${v.path}.initial`, 'number', scope(`the initial of variable '${v.name}'`, ALL_BUILTINS, i, 'at step 1, an initial may use only the variables listed before it'));
    const next = expression(v.body.next, `${v.path}.next`, 'number', scope(`the next of variable '${v.name}'`, ALL_BUILTINS, Infinity, ''));
    if (init !== undefined && next !== undefined) variables.push({ name: v.name, initial: init, next });
  });

  // transitions
  const transitions: (readonly [number, CheckedExpression])[][] = states.map(() => []);
  if (!isObject(input.transitions)) wrongType('transitions', input.transitions, 'an object {state: {next_state: weight}}');
  else {
    const s = scope('a transition weight', ALL_BUILTINS, Infinity, '');
    for (const [from, targets] of Object.entries(input.transitions)) {
      const path = `transitions.${from}`;
      const i = knownState(from, path);
      if (!isObject(targets)) {
        issue(path, `a state's transitions are an object {next_state: weight}, not ${typeOfJson(targets)}`);
        continue;
      }
      for (const [to, weight] of Object.entries(targets)) {
        const j = knownState(to, `${path}.${to}`);
        const checked = expression(weight, `${path}.${to}`, 'number', s);
        if (i !== undefined && j !== undefined && checked !== undefined) transitions[i]!.push([j, checked]);
      }
      if (i !== undefined) transitions[i]!.sort((a, b) => a[0] - b[0]);
    }
  }

  // fields' values, in order: each sees the fields before it (and their possible string values)
  const fields: ModelAnalysis['fields'][number][] = [];
  fieldDefs.forEach((f, i) => {
    const checked = expression(f.body.value, `${f.path}.value`, f.type === 'string' ? 'string' : 'number', scope(`the value of field '${f.name}'`, ALL_BUILTINS, Infinity, '', i));
    const values = f.type === 'string' && checked !== undefined ? [...(checked.types.get(checked.node)?.values ?? [])].sort() : [];
    scopeFields.get(f.name)!.values = new Set(values);
    if (checked !== undefined) fields.push({ name: f.name, type: f.type, decimals: f.decimals, description: f.description, value: checked, values });
  });

  // events' bodies
  const events: ModelAnalysis['events'][number][] = [];
  for (const e of eventDefs) {
    const eventDescription = text(e.body.description, `${e.path}.description`, true);
    const effect = e.body.effect === undefined ? undefined : text(e.body.effect, `${e.path}.effect`, false);
    const set: [number, CheckedExpression][] = [];
    if (e.body.set !== undefined) {
      if (!isObject(e.body.set)) issue(`${e.path}.set`, `must be an object {param: expression}, not ${typeOfJson(e.body.set)}`);
      else
        for (const [param, value] of Object.entries(e.body.set)) {
          const p = paramIndex.get(param);
          if (p === undefined) issue(`${e.path}.set.${param}`, `unknown param '${param}'${didYouMean(param, params)}`);
          const checked = expression(value, `${e.path}.set.${param}`, 'number', scope(`a set value`, ['step', 'sequence', 'event', 'intensity'], 0, "a set value is computed before the record's variables"));
          if (p !== undefined && checked !== undefined) set.push([p, checked]);
        }
    }
    const enter = e.body.enter === undefined ? undefined : knownState(e.body.enter, `${e.path}.enter`);
    if (Object.keys(isObject(e.body.set) ? e.body.set : {}).length === 0 && e.body.enter === undefined) {
      warnings.push({ path: e.path, message: `event type '${e.type}' sets no param and enters no state: only expressions that read 'event' see it` });
    }
    events.push({ type: e.type, description: eventDescription ?? '', effect: effect ?? eventDescription ?? '', set, enter });
  }

  // clock (engine 4's; checked now so a model written today stays valid)
  let clock: ModelAnalysis['clock'];
  if (input.clock !== undefined) {
    if (!isObject(input.clock)) issue('clock', `must be an object {step_seconds, start_offset_seconds}, not ${typeOfJson(input.clock)}`);
    else {
      unknownMembers(input.clock, CLOCK_MEMBERS, 'clock');
      const s = scope('a clock expression', ALL_BUILTINS, Infinity, '', fieldDefs.length);
      const stepSeconds = expression(input.clock.step_seconds ?? 1, 'clock.step_seconds', 'number', s);
      const startOffsetSeconds = expression(input.clock.start_offset_seconds ?? 0, 'clock.start_offset_seconds', 'number', s);
      if (stepSeconds !== undefined && startOffsetSeconds !== undefined) clock = { stepSeconds, startOffsetSeconds };
    }
  }

  // warnings: reachability and unused params (only for a definition whose states are sound)
  if (issues.length === 0 && initial !== undefined) {
    const reached = new Set<number>(typeof initial === 'number' ? [initial] : initial.filter(([, w]) => !isZero(w)).map(([s]) => s));
    for (const e of events) if (e.enter !== undefined) reached.add(e.enter);
    const queue = [...reached];
    while (queue.length > 0) {
      const s = queue.pop()!;
      if (terminal.has(s)) continue;
      for (const [t, w] of transitions[s]!) {
        if (!reached.has(t) && !isZero(w)) {
          reached.add(t);
          queue.push(t);
        }
      }
    }
    states.forEach((name, s) => {
      if (reached.has(s)) return;
      if (terminal.has(s)) warnings.push({ path: `terminal[${[...terminal].indexOf(s)}]`, message: `terminal state '${name}' can never be reached from initial, so no sequence ends there` });
      else warnings.push({ path: `states[${s}]`, message: `state '${name}' can never be reached from initial: no transition with a weight leads to it` });
    });
    for (const p of params) if (!usedParams.has(p)) warnings.push({ path: `profiles.${profiles[0]!}.${p}`, message: `param '${p}' is never used in an expression` });
  }

  if (issues.length > 0 || initial === undefined || description === undefined) return { issues, warnings };
  return {
    issues,
    warnings,
    analysis: {
      definition: input as unknown as ModelDefinition,
      states,
      profiles,
      defaultProfile,
      params,
      profileValues,
      variables,
      initial,
      terminal,
      transitions,
      fields,
      events,
      clock,
    },
  };
}

/** A weight that is the literal 0 (a transition that can never be taken). */
const isZero = (w: CheckedExpression): boolean => w.node.kind === 'number' && w.node.value === 0;

const describeType = (type: ValueType): string => (type === 'boolean' ? 'a condition (true or false)' : `a ${type}`);
