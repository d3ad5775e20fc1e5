import { type BinaryOperator, type ExpressionNode, ExpressionSyntaxError } from './expressionTree.ts';

// A hand-written Pratt parser (docs/models.md, "Implementation notes"): the grammar is a dozen
// operators, and writing it ourselves lets every error say, in our words and at the exact character,
// what the language allows instead (a library's grammar is wider: member access, `this`, compound
// literals, which we would have to find and refuse node by node).

type Token =
  | { readonly type: 'number'; readonly value: number; readonly start: number; readonly end: number }
  | { readonly type: 'string'; readonly value: string; readonly start: number; readonly end: number }
  | { readonly type: 'name'; readonly value: string; readonly start: number; readonly end: number }
  | { readonly type: 'punct'; readonly value: string; readonly start: number; readonly end: number }
  | { readonly type: 'end'; readonly value: ''; readonly start: number; readonly end: number };

const PUNCTUATION = ['**', '==', '!=', '<=', '>=', '&&', '||', '+', '-', '*', '/', '%', '<', '>', '!', '?', ':', '(', ')', '[', ']', ','];

// Binding powers: left, and right (right < left for the right-associative `**`).
const BINARY: Readonly<Record<string, readonly [number, number]>> = {
  '||': [3, 4],
  '&&': [5, 6],
  '==': [7, 8],
  '!=': [7, 8],
  '<': [9, 10],
  '<=': [9, 10],
  '>': [9, 10],
  '>=': [9, 10],
  '+': [11, 12],
  '-': [11, 12],
  '*': [13, 14],
  '/': [13, 14],
  '%': [13, 14],
  '**': [17, 16],
};
const CONDITIONAL_POWER = 2;
const UNARY_POWER = 15;

const isDigit = (c: string): boolean => c >= '0' && c <= '9';
const isNameStart = (c: string): boolean => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_';
const isNamePart = (c: string): boolean => isNameStart(c) || isDigit(c);

function describe(token: Token): string {
  switch (token.type) {
    case 'end':
      return 'the end of the expression';
    case 'number':
      return `the number ${token.value}`;
    case 'string':
      return 'a string';
    case 'name':
      return `'${token.value}'`;
    case 'punct':
      return `'${token.value}'`;
  }
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
      continue;
    }
    const start = i;
    if (isDigit(c) || (c === '.' && isDigit(text[i + 1] ?? ''))) {
      while (isDigit(text[i] ?? '')) i++;
      if (text[i] === '.') {
        i++;
        while (isDigit(text[i] ?? '')) i++;
      }
      if (text[i] === 'e' || text[i] === 'E') {
        let j = i + 1;
        if (text[j] === '+' || text[j] === '-') j++;
        if (!isDigit(text[j] ?? '')) throw new ExpressionSyntaxError('a number\'s exponent needs digits (like 1e-3)', i);
        while (isDigit(text[j] ?? '')) j++;
        i = j;
      }
      if (isNameStart(text[i] ?? '')) throw new ExpressionSyntaxError(`a number cannot run into a name ('${text.slice(start, i + 1)}')`, start);
      tokens.push({ type: 'number', value: Number(text.slice(start, i)), start, end: i });
      continue;
    }
    if (isNameStart(c)) {
      while (isNamePart(text[i] ?? '')) i++;
      tokens.push({ type: 'name', value: text.slice(start, i), start, end: i });
      continue;
    }
    if (c === "'") {
      let value = '';
      i++;
      for (;;) {
        const d = text[i];
        if (d === undefined) throw new ExpressionSyntaxError("a string is not closed (strings are in single quotes: 'like this')", start);
        if (d === "'") break;
        if (d === '\\') {
          const e = text[i + 1];
          if (e !== "'" && e !== '\\') throw new ExpressionSyntaxError("in a string, a backslash escapes only ' and \\", i);
          value += e;
          i += 2;
          continue;
        }
        value += d;
        i++;
      }
      i++;
      tokens.push({ type: 'string', value, start, end: i });
      continue;
    }
    if (c === '"') throw new ExpressionSyntaxError("strings are in single quotes ('like this'), not double quotes", i);
    const punct = PUNCTUATION.find((p) => text.startsWith(p, i));
    if (punct === undefined) {
      if (c === '.') throw new ExpressionSyntaxError("'.' is not part of the language: there is no property access", i);
      if (c === '=') throw new ExpressionSyntaxError("'=' is not part of the language (there is no assignment); to compare, write '=='", i);
      if (c === '&' || c === '|') throw new ExpressionSyntaxError(`'${c}' alone is not an operator; write '${c}${c}'`, i);
      throw new ExpressionSyntaxError(`unexpected character '${c}'`, i);
    }
    if ((punct === '==' || punct === '!=') && text[i + 2] === '=') {
      throw new ExpressionSyntaxError(`'${punct}=' is not an operator; write '${punct}'`, i);
    }
    i += punct.length;
    tokens.push({ type: 'punct', value: punct, start, end: i });
  }
  tokens.push({ type: 'end', value: '', start: text.length, end: text.length });
  return tokens;
}

class Parser {
  private readonly tokens: Token[];
  private index = 0;

  constructor(tokens: Token[]) {
    this.tokens = tokens;
  }

  private peek(): Token {
    return this.tokens[this.index]!;
  }

  private take(): Token {
    return this.tokens[this.index++]!;
  }

  private isPunct(value: string): boolean {
    const token = this.peek();
    return token.type === 'punct' && token.value === value;
  }

  private expect(value: string, what: string): Token {
    const token = this.peek();
    if (token.type !== 'punct' || token.value !== value) {
      throw new ExpressionSyntaxError(`expected '${value}' ${what}, found ${describe(token)}`, token.start);
    }
    return this.take();
  }

  parseAll(): ExpressionNode {
    const node = this.parse(0);
    const rest = this.peek();
    if (rest.type !== 'end') {
      throw new ExpressionSyntaxError(`expected an operator or the end of the expression, found ${describe(rest)}`, rest.start);
    }
    return node;
  }

  private parse(minPower: number): ExpressionNode {
    let left = this.prefix();
    for (;;) {
      const token = this.peek();
      if (token.type !== 'punct') break;
      if (token.value === '?') {
        if (CONDITIONAL_POWER < minPower) break;
        this.take();
        const consequent = this.parse(0);
        this.expect(':', "between a conditional's two branches");
        // Right-associative: a ? b : c ? d : e is a ? b : (c ? d : e).
        const alternate = this.parse(CONDITIONAL_POWER);
        left = { kind: 'conditional', test: left, consequent, alternate, start: left.start, end: alternate.end };
        continue;
      }
      const powers = BINARY[token.value];
      if (powers === undefined || powers[0] < minPower) break;
      this.take();
      const right = this.parse(powers[1]);
      left = { kind: 'binary', operator: token.value as BinaryOperator, left, right, start: left.start, end: right.end };
    }
    return left;
  }

  private prefix(): ExpressionNode {
    const token = this.take();
    switch (token.type) {
      case 'number':
        return { kind: 'number', value: token.value, start: token.start, end: token.end };
      case 'string':
        return { kind: 'string', value: token.value, start: token.start, end: token.end };
      case 'name': {
        if (token.value === 'true' || token.value === 'false') {
          return { kind: 'boolean', value: token.value === 'true', start: token.start, end: token.end };
        }
        if (this.isPunct('(')) return this.call(token.value, token.start);
        return { kind: 'identifier', name: token.value, start: token.start, end: token.end };
      }
      case 'punct': {
        if (token.value === '-' || token.value === '!') {
          const operand = this.parse(UNARY_POWER);
          return { kind: 'unary', operator: token.value, operand, start: token.start, end: operand.end };
        }
        if (token.value === '(') {
          const inner = this.parse(0);
          const close = this.expect(')', 'to close the parenthesis');
          // The parenthesis is part of the node's text, so a problem with it points at its opening.
          return { ...inner, start: token.start, end: close.end };
        }
        if (token.value === '[') {
          const elements = this.list(']');
          return { kind: 'array', elements, start: token.start, end: this.tokens[this.index - 1]!.end };
        }
        if (token.value === '+') throw new ExpressionSyntaxError("unary '+' is not part of the language; write the number itself", token.start);
        throw new ExpressionSyntaxError(`expected a value, found ${describe(token)}`, token.start);
      }
      case 'end':
        throw new ExpressionSyntaxError('the expression ends where a value is expected', token.start);
    }
  }

  private call(callee: string, start: number): ExpressionNode {
    this.take(); // '('
    const args = this.list(')');
    return { kind: 'call', callee, args, start, end: this.tokens[this.index - 1]!.end };
  }

  /** Comma-separated expressions up to `close` (which is consumed). */
  private list(close: string): ExpressionNode[] {
    const items: ExpressionNode[] = [];
    if (this.isPunct(close)) {
      this.take();
      return items;
    }
    for (;;) {
      items.push(this.parse(0));
      if (this.isPunct(',')) {
        this.take();
        continue;
      }
      this.expect(close, close === ')' ? "or ',' in the call's arguments" : "or ',' in the list");
      return items;
    }
  }
}

/** Parses one expression; throws ExpressionSyntaxError with the offset of the first problem. */
export function parseExpression(text: string): ExpressionNode {
  return new Parser(tokenize(text)).parseAll();
}
