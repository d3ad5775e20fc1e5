import type { CheckedExpression } from './analyseModel.ts';
import type { ExpressionNode } from './expressionTree.ts';
import type { ModelFrame } from './modelFrame.ts';
import * as draw from './randomDraws.ts';

export type NumberCode = (f: ModelFrame) => number;
export type BooleanCode = (f: ModelFrame) => boolean;
/** A string expression compiles to its string id in the model's table. */
export type StringCode = (f: ModelFrame) => number;

/** What the compiler resolves names against: slots and the string table, built once per model. */
export interface CompileContext {
  readonly params: ReadonlyMap<string, number>;
  readonly variables: ReadonlyMap<string, number>;
  readonly fields: ReadonlyMap<string, number>;
  /** The id of a string in the model's string table (added when new). */
  stringId(value: string): number;
  /** The next random call site's first slot. */
  nextSite(): number;
  readonly countNodes: boolean;
  /** Nodes compiled so far (the model's size: a record evaluates each at most once). */
  nodes: number;
}

const DETERMINISTIC = new Set(['abs', 'min', 'max', 'clamp', 'exp', 'log', 'sqrt', 'pow', 'floor', 'ceil', 'round']);

/** A number expression of literals and deterministic functions only: its value never changes. */
function isConstant(node: ExpressionNode): boolean {
  switch (node.kind) {
    case 'number':
      return true;
    case 'unary':
      return node.operator === '-' && isConstant(node.operand);
    case 'binary':
      return ['+', '-', '*', '/', '%', '**'].includes(node.operator) && isConstant(node.left) && isConstant(node.right);
    case 'call':
      return DETERMINISTIC.has(node.callee) && node.args.every(isConstant);
    default:
      return false;
  }
}

/** The value of a constant expression (isConstant), computed as its compiled closures would. */
function constantValue(node: ExpressionNode): number {
  switch (node.kind) {
    case 'number':
      return node.value;
    case 'unary':
      return -constantValue(node.operand);
    case 'binary': {
      const a = constantValue(node.left);
      const b = constantValue(node.right);
      switch (node.operator) {
        case '+':
          return a + b;
        case '-':
          return a - b;
        case '*':
          return a * b;
        case '/':
          return a / b;
        case '%':
          return a % b;
        default:
          return Math.pow(a, b);
      }
    }
    case 'call': {
      const args = node.args.map(constantValue);
      const [a = Number.NaN, b = Number.NaN, c = Number.NaN] = args;
      switch (node.callee) {
        case 'abs':
          return Math.abs(a);
        case 'min':
          return Math.min(...args);
        case 'max':
          return Math.max(...args);
        case 'clamp':
          return a < b ? b : a > c ? c : a;
        case 'exp':
          return Math.exp(a);
        case 'log':
          return Math.log(a);
        case 'sqrt':
          return Math.sqrt(a);
        case 'pow':
          return Math.pow(a, b);
        case 'floor':
          return Math.floor(a);
        case 'ceil':
          return Math.ceil(a);
        case 'round':
          return args.length === 1 ? roundHalfAway(a) : roundTo(a, b);
        default:
          break;
      }
      break;
    }
    default:
      break;
  }
  throw new Error(`not a constant: ${node.kind}`);
}

const roundHalfAway = (x: number): number => (x < 0 ? -Math.round(-x) : Math.round(x));

/** round(x, digits): half away from zero, like integer fields. */
function roundTo(x: number, digits: number): number {
  if (digits === 0) return roundHalfAway(x);
  const scale = Math.pow(10, Math.trunc(digits));
  const scaled = x * scale;
  // Beyond 2^53 a double has no fraction left to round.
  return Math.abs(scaled) >= 9007199254740992 ? x : roundHalfAway(scaled) / scale;
}

/**
 * The checked tree as closures over the frame's slots (docs/development.md#code-conventions): compiled once per model, no text is
 * ever evaluated. Each compile* returns a closure of one type, so the runtime's calls stay monomorphic.
 */
export class ExpressionCompiler {
  private readonly context: CompileContext;
  private types: CheckedExpression['types'] = new Map();

  constructor(context: CompileContext) {
    this.context = context;
  }

  number(expression: CheckedExpression): NumberCode {
    this.types = expression.types;
    return this.num(expression.node);
  }

  string(expression: CheckedExpression): StringCode {
    this.types = expression.types;
    return this.str(expression.node);
  }

  private counted<T>(code: (f: ModelFrame) => T): (f: ModelFrame) => T {
    this.context.nodes++;
    if (!this.context.countNodes) return code;
    return (f) => {
      f.evaluated++;
      return code(f);
    };
  }

  private num(node: ExpressionNode): NumberCode {
    // A subtree of literals and deterministic functions is folded to its value once, here.
    if (node.kind !== 'number' && isConstant(node)) {
      const value = constantValue(node);
      return this.counted(() => value);
    }
    return this.counted(this.numberCode(node));
  }

  private bool(node: ExpressionNode): BooleanCode {
    return this.counted(this.booleanCode(node));
  }

  private str(node: ExpressionNode): StringCode {
    return this.counted(this.stringCode(node));
  }

  private numberCode(node: ExpressionNode): NumberCode {
    switch (node.kind) {
      case 'number': {
        const value = node.value;
        return () => value;
      }
      case 'identifier': {
        const name = node.name;
        if (name === 'step') return (f) => f.step;
        if (name === 'sequence') return (f) => f.sequence;
        if (name === 'intensity') return (f) => f.intensity;
        const param = this.context.params.get(name);
        if (param !== undefined) return (f) => f.params[param]!;
        const variable = this.context.variables.get(name);
        if (variable !== undefined) return (f) => f.variables[variable]!;
        const field = this.context.fields.get(name);
        if (field !== undefined) return (f) => f.numbers[field]!;
        break;
      }
      case 'unary': {
        const operand = this.num(node.operand);
        return (f) => -operand(f);
      }
      case 'binary': {
        const special = this.withConstant(node);
        if (special !== undefined) return special;
        const a = this.num(node.left);
        const b = this.num(node.right);
        switch (node.operator) {
          case '+':
            return (f) => a(f) + b(f);
          case '-':
            return (f) => a(f) - b(f);
          case '*':
            return (f) => a(f) * b(f);
          case '/':
            return (f) => a(f) / b(f);
          case '%':
            return (f) => a(f) % b(f);
          case '**':
            return (f) => Math.pow(a(f), b(f));
          default:
            break;
        }
        break;
      }
      case 'conditional': {
        const test = this.bool(node.test);
        const a = this.num(node.consequent);
        const b = this.num(node.alternate);
        return (f) => (test(f) ? a(f) : b(f));
      }
      case 'call':
        return this.callCode(node);
      default:
        break;
    }
    throw new Error(`not a checked number expression: ${node.kind}`);
  }

  /** Arithmetic with one constant side (`x * 2`, `1 - p`): one closure call fewer per evaluation. */
  private withConstant(node: ExpressionNode & { kind: 'binary' }): NumberCode | undefined {
    const op = node.operator;
    if (op !== '+' && op !== '-' && op !== '*' && op !== '/') return undefined;
    if (isConstant(node.right)) {
      const a = this.num(node.left);
      const c = constantValue(node.right);
      return op === '+' ? (f) => a(f) + c : op === '-' ? (f) => a(f) - c : op === '*' ? (f) => a(f) * c : (f) => a(f) / c;
    }
    if (isConstant(node.left)) {
      const c = constantValue(node.left);
      const b = this.num(node.right);
      return op === '+' ? (f) => c + b(f) : op === '-' ? (f) => c - b(f) : op === '*' ? (f) => c * b(f) : (f) => c / b(f);
    }
    return undefined;
  }

  private callCode(node: ExpressionNode & { kind: 'call' }): NumberCode {
    const args = node.args.map((arg) => this.num(arg));
    const [a, b, c] = args as [NumberCode, NumberCode, NumberCode];
    const context = this.context;
    switch (node.callee) {
      case 'abs':
        return (f) => Math.abs(a(f));
      case 'min':
      case 'max': {
        const pick = node.callee === 'min' ? Math.min : Math.max;
        if (args.length === 2) return (f) => pick(a(f), b(f));
        return (f) => {
          let result = args[0]!(f);
          for (let i = 1; i < args.length; i++) result = pick(result, args[i]!(f));
          return result;
        };
      }
      case 'clamp':
        return (f) => {
          const x = a(f);
          const lo = b(f);
          const hi = c(f);
          return x < lo ? lo : x > hi ? hi : x;
        };
      case 'exp':
        return (f) => Math.exp(a(f));
      case 'log':
        return (f) => Math.log(a(f));
      case 'sqrt':
        return (f) => Math.sqrt(a(f));
      case 'pow':
        return (f) => Math.pow(a(f), b(f));
      case 'floor':
        return (f) => Math.floor(a(f));
      case 'ceil':
        return (f) => Math.ceil(a(f));
      case 'round':
        return args.length === 1 ? (f) => roundHalfAway(a(f)) : (f) => roundTo(a(f), b(f));
      default:
        break;
    }
    const base = context.nextSite();
    if (node.args.every(isConstant)) {
      const constant = this.constantDraw(node.callee, base, node.args.map(constantValue));
      if (constant !== undefined) return constant;
    }
    switch (node.callee) {
      case 'uniform':
        return (f) => draw.uniform(f.rng, base, a(f), b(f));
      case 'integer':
        return (f) => draw.integer(f.rng, base, a(f), b(f));
      case 'normal':
        return (f) => draw.normal(f.rng, base, a(f), b(f));
      case 'lognormal':
        return (f) => draw.lognormal(f.rng, base, a(f), b(f));
      case 'exponential':
        return (f) => draw.exponential(f.rng, base, a(f));
      case 'gamma':
        return (f) => draw.gamma(f.rng, base, a(f), b(f));
      case 'beta':
        return (f) => draw.beta(f.rng, base, a(f), b(f));
      case 'poisson':
        return (f) => draw.poisson(f.rng, base, a(f));
      case 'bernoulli':
        return (f) => draw.bernoulli(f.rng, base, a(f));
      default:
        throw new Error(`not a number function: ${node.callee}`);
    }
  }

  /** A draw whose arguments are constants (`normal(0, 1)`): the arguments are not evaluated per draw. */
  private constantDraw(callee: string, base: number, args: readonly number[]): NumberCode | undefined {
    const [a = Number.NaN, b = Number.NaN] = args;
    switch (callee) {
      case 'uniform':
        return (f) => draw.uniform(f.rng, base, a, b);
      case 'normal':
        return (f) => draw.normal(f.rng, base, a, b);
      case 'lognormal':
        return (f) => draw.lognormal(f.rng, base, a, b);
      case 'exponential':
        return (f) => draw.exponential(f.rng, base, a);
      case 'bernoulli':
        return (f) => draw.bernoulli(f.rng, base, a);
      default:
        return undefined;
    }
  }

  private booleanCode(node: ExpressionNode): BooleanCode {
    switch (node.kind) {
      case 'boolean': {
        const value = node.value;
        return () => value;
      }
      case 'unary': {
        const operand = this.bool(node.operand);
        return (f) => !operand(f);
      }
      case 'conditional': {
        const test = this.bool(node.test);
        const a = this.bool(node.consequent);
        const b = this.bool(node.alternate);
        return (f) => (test(f) ? a(f) : b(f));
      }
      case 'binary': {
        const op = node.operator;
        if (op === '&&' || op === '||') {
          const a = this.bool(node.left);
          const b = this.bool(node.right);
          return op === '&&' ? (f) => a(f) && b(f) : (f) => a(f) || b(f);
        }
        const side = this.types.get(node.left)?.type;
        if ((op === '==' || op === '!=') && side === 'string' && (node.left.kind === 'string' || node.right.kind === 'string')) {
          // `state == 'Active'`: one closure, the literal's id a constant.
          const literal = node.left.kind === 'string' ? node.left : node.right;
          const other = this.str(literal === node.left ? node.right : node.left);
          this.context.nodes++;
          const id = this.context.stringId((literal as ExpressionNode & { kind: 'string' }).value);
          return op === '==' ? (f) => other(f) === id : (f) => other(f) !== id;
        }
        if (op === '==' || op === '!=') {
          // Strings compare by id (one id per distinct string); numbers and booleans by value.
          const a = side === 'string' ? this.str(node.left) : side === 'boolean' ? this.bool(node.left) : this.num(node.left);
          const b = side === 'string' ? this.str(node.right) : side === 'boolean' ? this.bool(node.right) : this.num(node.right);
          return op === '==' ? (f) => a(f) === b(f) : (f) => a(f) !== b(f);
        }
        const a = this.num(node.left);
        const b = this.num(node.right);
        switch (op) {
          case '<':
            return (f) => a(f) < b(f);
          case '<=':
            return (f) => a(f) <= b(f);
          case '>':
            return (f) => a(f) > b(f);
          case '>=':
            return (f) => a(f) >= b(f);
          default:
            break;
        }
        break;
      }
      default:
        break;
    }
    throw new Error(`not a checked condition: ${node.kind}`);
  }

  private stringCode(node: ExpressionNode): StringCode {
    switch (node.kind) {
      case 'string': {
        const id = this.context.stringId(node.value);
        return () => id;
      }
      case 'identifier': {
        if (node.name === 'state') return (f) => f.state;
        if (node.name === 'prev_state') return (f) => f.prevState;
        if (node.name === 'event') return (f) => f.event;
        const field = this.context.fields.get(node.name);
        if (field !== undefined) return (f) => f.strings[field]!;
        break;
      }
      case 'conditional': {
        const test = this.bool(node.test);
        const a = this.str(node.consequent);
        const b = this.str(node.alternate);
        return (f) => (test(f) ? a(f) : b(f));
      }
      case 'call': {
        if (node.callee !== 'choice') break;
        const [values, weights] = node.args;
        if (values?.kind !== 'array' || weights?.kind !== 'array') break;
        const valueCodes = values.elements.map((e) => this.str(e));
        const weightCodes = weights.elements.map((e) => this.num(e));
        const scratch = new Float64Array(weightCodes.length);
        const base = this.context.nextSite();
        return (f) => {
          for (let i = 0; i < weightCodes.length; i++) scratch[i] = weightCodes[i]!(f);
          return valueCodes[draw.choiceIndex(f.rng, base, scratch)]!(f);
        };
      }
      default:
        break;
    }
    throw new Error(`not a checked string expression: ${node.kind}`);
  }
}
