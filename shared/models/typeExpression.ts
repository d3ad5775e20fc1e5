import { didYouMean } from './didYouMean.ts';
import type { ExpressionScope, Typed, ValueType } from './expressionScope.ts';
import type { ExpressionNode } from './expressionTree.ts';
import { BUILTIN_IDENTIFIERS, type BuiltinIdentifier, MODEL_FUNCTIONS } from './modelFunctions.ts';

/** Reports a problem at a node (the caller adds the path and the character). */
export type ReportAt = (message: string, node: ExpressionNode) => void;

const NUMBER: Typed = { type: 'number' };
const BOOLEAN: Typed = { type: 'boolean' };

const typeName = (type: ValueType): string => (type === 'boolean' ? 'a condition (true or false)' : `a ${type}`);

const BUILTIN_NOTES: Readonly<Record<BuiltinIdentifier, string>> = {
  state: 'the state is not drawn yet there',
  prev_state: 'there is no previous record there',
  step: '',
  sequence: '',
  event: '',
  intensity: '',
};

/**
 * Resolves every name and type of a parsed expression once, reporting each problem (several per
 * expression where they are independent), and records each node's type in `types` for the compiler.
 * Returns the expression's type, or undefined where a problem already makes it unknown (so one mistake
 * is reported once, not again by every node around it).
 */
export function typeExpression(node: ExpressionNode, scope: ExpressionScope, report: ReportAt, types: Map<ExpressionNode, Typed>): Typed | undefined {
  const typed = typeOf(node, scope, report, types);
  if (typed !== undefined) types.set(node, typed);
  return typed;
}

function expect(node: ExpressionNode, want: ValueType, why: string, scope: ExpressionScope, report: ReportAt, types: Map<ExpressionNode, Typed>): Typed | undefined {
  const typed = typeExpression(node, scope, report, types);
  if (typed === undefined) return undefined;
  if (typed.type !== want) {
    const hint =
      want === 'boolean' && typed.type === 'number' ? ' (compare it, like x > 0)'
      : want === 'number' && typed.type === 'boolean' ? " (write cond ? 1 : 0 for a number)"
      : '';
    report(`${why} must be ${typeName(want)}, not ${typeName(typed.type)}${hint}`, node);
    return undefined;
  }
  return typed;
}

function identifier(name: string, node: ExpressionNode, scope: ExpressionScope, report: ReportAt): Typed | undefined {
  if ((BUILTIN_IDENTIFIERS as readonly string[]).includes(name)) {
    const builtin = name as BuiltinIdentifier;
    if (!scope.builtins.has(builtin)) {
      report(`'${name}' cannot be used in ${scope.place}${BUILTIN_NOTES[builtin] === '' ? '' : `: ${BUILTIN_NOTES[builtin]}`}`, node);
      return undefined;
    }
    if (builtin === 'state' || builtin === 'prev_state') return { type: 'string', values: new Set(scope.states) };
    if (builtin === 'event') return { type: 'string', values: new Set(['', ...scope.eventTypes]) };
    return NUMBER;
  }
  if (scope.params.has(name)) {
    scope.usedParams.add(name);
    return NUMBER;
  }
  const variable = scope.variables.get(name);
  if (variable !== undefined) {
    if (variable < scope.variablesBefore) return NUMBER;
    report(`variable '${name}' cannot be used in ${scope.place}: ${scope.variablesNote}`, node);
    return undefined;
  }
  const field = scope.fields.get(name);
  if (field !== undefined) {
    if (field.index < scope.fieldsBefore) {
      return field.type === 'string' ? { type: 'string', values: field.values ?? new Set() } : NUMBER;
    }
    report(
      scope.fieldsBefore > 0 || scope.place.startsWith('the value of')
        ? `field '${name}' is not listed before this one: a value may use only the fields listed earlier`
        : `field '${name}' cannot be used in ${scope.place}: only a field's value reads other fields`,
      node,
    );
    return undefined;
  }
  if (MODEL_FUNCTIONS.has(name)) {
    report(`'${name}' is a function: call it, like ${MODEL_FUNCTIONS.get(name)!.signature}`, node);
    return undefined;
  }
  const visible = [
    ...[...scope.builtins],
    ...scope.params.keys(),
    ...[...scope.variables].filter(([, i]) => i < scope.variablesBefore).map(([n]) => n),
    ...[...scope.fields].filter(([, f]) => f.index < scope.fieldsBefore).map(([n]) => n),
  ];
  report(`unknown name '${name}'${didYouMean(name, visible)}`, node);
  return undefined;
}

/** A comparison of state/prev_state/event with strings that can never be equal to it. */
function checkComparedStrings(a: ExpressionNode, b: ExpressionNode, scope: ExpressionScope, report: ReportAt, types: Map<ExpressionNode, Typed>): void {
  if (a.kind !== 'identifier') return;
  const other = types.get(b);
  if (other?.values === undefined) return;
  if (a.name === 'state' || a.name === 'prev_state') {
    for (const value of other.values) {
      if (!scope.states.includes(value)) report(`unknown state '${value}'${didYouMean(value, scope.states)}`, b);
    }
  } else if (a.name === 'event') {
    for (const value of other.values) {
      if (value !== '' && !scope.eventTypes.includes(value)) report(`unknown event type '${value}'${didYouMean(value, scope.eventTypes)}`, b);
    }
  }
}

function call(node: ExpressionNode & { kind: 'call' }, scope: ExpressionScope, report: ReportAt, types: Map<ExpressionNode, Typed>): Typed | undefined {
  const fn = MODEL_FUNCTIONS.get(node.callee);
  if (fn === undefined) {
    const isName = scope.params.has(node.callee) || scope.variables.has(node.callee) || scope.fields.has(node.callee);
    report(isName ? `'${node.callee}' is not a function` : `unknown function '${node.callee}'${didYouMean(node.callee, MODEL_FUNCTIONS.keys())}`, node);
    // The arguments are still checked: their problems are independent.
    for (const arg of node.args) if (arg.kind !== 'array') typeExpression(arg, scope, report, types);
    return undefined;
  }
  const count = node.args.length;
  if (count < fn.minArgs || count > fn.maxArgs) {
    const wanted = fn.minArgs === fn.maxArgs ? `${fn.minArgs}` : fn.maxArgs === Infinity ? `at least ${fn.minArgs}` : `${fn.minArgs} or ${fn.maxArgs}`;
    report(`${node.callee} takes ${wanted} argument${wanted === '1' ? '' : 's'}, not ${count}: ${fn.signature}`, node);
    return undefined;
  }
  if (node.callee === 'choice') {
    const [values, weights] = node.args as [ExpressionNode, ExpressionNode];
    let ok = true;
    const possible = new Set<string>();
    if (values.kind !== 'array' || values.elements.length === 0) {
      report(`choice's first argument is a non-empty list of strings, like ['a', 'b']`, values);
      ok = false;
    } else {
      for (const element of values.elements) {
        const typed = expect(element, 'string', 'a choice', scope, report, types);
        if (typed === undefined) ok = false;
        else for (const v of typed.values ?? []) possible.add(v);
      }
    }
    if (weights.kind !== 'array') {
      report(`choice's second argument is a list of weights, like [0.7, 0.3]`, weights);
      ok = false;
    } else {
      for (const element of weights.elements) if (expect(element, 'number', 'a choice weight', scope, report, types) === undefined) ok = false;
      if (values.kind === 'array' && values.elements.length !== weights.elements.length) {
        report(`choice has ${values.kind === 'array' ? values.elements.length : 0} values but ${weights.elements.length} weights: give one weight per value`, weights);
        ok = false;
      }
    }
    return ok ? { type: 'string', values: possible } : undefined;
  }
  let ok = true;
  node.args.forEach((arg, i) => {
    if (expect(arg, 'number', `argument ${i + 1} of ${node.callee}`, scope, report, types) === undefined) ok = false;
  });
  return ok ? NUMBER : undefined;
}

function typeOf(node: ExpressionNode, scope: ExpressionScope, report: ReportAt, types: Map<ExpressionNode, Typed>): Typed | undefined {
  switch (node.kind) {
    case 'number':
      return NUMBER;
    case 'string':
      return { type: 'string', values: new Set([node.value]) };
    case 'boolean':
      return BOOLEAN;
    case 'identifier':
      return identifier(node.name, node, scope, report);
    case 'array':
      report('a list [...] may appear only as an argument of choice', node);
      return undefined;
    case 'call':
      return call(node, scope, report, types);
    case 'unary':
      return node.operator === '-'
        ? expect(node.operand, 'number', "the operand of unary '-'", scope, report, types) && NUMBER
        : expect(node.operand, 'boolean', "the operand of '!'", scope, report, types) && BOOLEAN;
    case 'conditional': {
      const test = expect(node.test, 'boolean', 'the condition before ?', scope, report, types);
      const a = typeExpression(node.consequent, scope, report, types);
      const b = typeExpression(node.alternate, scope, report, types);
      if (test === undefined || a === undefined || b === undefined) return undefined;
      if (a.type !== b.type) {
        report(`both branches of ? : must have one type, not ${typeName(a.type)} and ${typeName(b.type)}`, node);
        return undefined;
      }
      return a.type === 'string' ? { type: 'string', values: new Set([...(a.values ?? []), ...(b.values ?? [])]) } : a;
    }
    case 'binary': {
      const op = node.operator;
      if (op === '&&' || op === '||') {
        const a = expect(node.left, 'boolean', `each side of '${op}'`, scope, report, types);
        const b = expect(node.right, 'boolean', `each side of '${op}'`, scope, report, types);
        return a && b && BOOLEAN;
      }
      if (op === '==' || op === '!=') {
        const a = typeExpression(node.left, scope, report, types);
        const b = typeExpression(node.right, scope, report, types);
        if (a === undefined || b === undefined) return undefined;
        if (a.type !== b.type) {
          report(`'${op}' compares values of one type, not ${typeName(a.type)} and ${typeName(b.type)}`, node);
          return undefined;
        }
        if (a.type === 'string') {
          checkComparedStrings(node.left, node.right, scope, report, types);
          checkComparedStrings(node.right, node.left, scope, report, types);
        }
        return BOOLEAN;
      }
      const a = typeExpression(node.left, scope, report, types);
      const b = typeExpression(node.right, scope, report, types);
      if (a === undefined || b === undefined) return undefined;
      const comparison = op === '<' || op === '<=' || op === '>' || op === '>=';
      if (a.type === 'string' || b.type === 'string') {
        report(comparison ? `strings compare only with == and !=, not '${op}'` : `'${op}' works on numbers; strings cannot be joined or computed with`, node);
        return undefined;
      }
      if (a.type !== 'number' || b.type !== 'number') {
        report(`'${op}' works on numbers, not ${typeName(a.type === 'number' ? b.type : a.type)}`, node);
        return undefined;
      }
      return comparison ? BOOLEAN : NUMBER;
    }
  }
}
