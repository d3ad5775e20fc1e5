import test from 'ava';
import type { ExpressionNode } from '../../shared/models/expressionTree.ts';
import { ExpressionSyntaxError } from '../../shared/models/expressionTree.ts';
import { parseExpression } from '../../shared/models/parseExpression.ts';

/** The tree as fully parenthesised text, to compare precedence and associativity at a glance. */
function show(node: ExpressionNode): string {
  switch (node.kind) {
    case 'number':
      return String(node.value);
    case 'string':
      return `'${node.value}'`;
    case 'boolean':
      return String(node.value);
    case 'identifier':
      return node.name;
    case 'unary':
      return `(${node.operator}${show(node.operand)})`;
    case 'binary':
      return `(${show(node.left)} ${node.operator} ${show(node.right)})`;
    case 'conditional':
      return `(${show(node.test)} ? ${show(node.consequent)} : ${show(node.alternate)})`;
    case 'call':
      return `${node.callee}(${node.args.map(show).join(', ')})`;
    case 'array':
      return `[${node.elements.map(show).join(', ')}]`;
  }
}

const syntaxError = (text: string): { message: string; position: number } => {
  try {
    parseExpression(text);
  } catch (error) {
    if (error instanceof ExpressionSyntaxError) return { message: error.message, position: error.position };
    throw error;
  }
  throw new Error(`parsed: ${text}`);
};

test('precedence and associativity follow the usual rules; ** binds tighter than unary minus and to the right', (t) => {
  t.is(show(parseExpression('1 + 2 * 3 - 4 / 5 % 6')), '((1 + (2 * 3)) - ((4 / 5) % 6))');
  t.is(show(parseExpression('-x ** 2')), '(-(x ** 2))');
  t.is(show(parseExpression('2 ** 3 ** 2')), '(2 ** (3 ** 2))');
  t.is(show(parseExpression('a || b && !c == d')), '(a || (b && ((!c) == d)))');
  t.is(show(parseExpression('a < b == c >= d')), '((a < b) == (c >= d))');
  t.is(show(parseExpression('a ? b : c ? d : e')), '(a ? b : (c ? d : e))');
  t.is(show(parseExpression('x > 1 ? y + 1 : z')), '((x > 1) ? (y + 1) : z)');
  t.is(show(parseExpression("choice(['a', 'b\\'s'], [1, .5e1])")), "choice(['a', 'b's'], [1, 5])");
  t.is(show(parseExpression('(1 + 2) * 3')), '((1 + 2) * 3)');
  t.is(show(parseExpression('true != false')), '(true != false)');
});

test('every node carries the offsets of its text', (t) => {
  const node = parseExpression('rate + normal(0, sd)');
  t.like(node, { kind: 'binary', start: 0, end: 20 });
  if (node.kind !== 'binary') return t.fail();
  t.like(node.right, { kind: 'call', callee: 'normal', start: 7, end: 20 });
  t.like(parseExpression('  (x)'), { kind: 'identifier', start: 2, end: 5 });
});

test('what is not in the language is refused with the reason and the offset', (t) => {
  t.deepEqual(syntaxError('a.b'), { message: "'.' is not part of the language: there is no property access", position: 1 });
  t.deepEqual(syntaxError('x = 1'), { message: "'=' is not part of the language (there is no assignment); to compare, write '=='", position: 2 });
  t.deepEqual(syntaxError('x === 1'), { message: "'===' is not an operator; write '=='", position: 2 });
  t.deepEqual(syntaxError('"s"'), { message: "strings are in single quotes ('like this'), not double quotes", position: 0 });
  t.deepEqual(syntaxError("'open"), { message: "a string is not closed (strings are in single quotes: 'like this')", position: 0 });
  t.deepEqual(syntaxError('a & b'), { message: "'&' alone is not an operator; write '&&'", position: 2 });
  t.deepEqual(syntaxError('a[0]'), { message: 'expected an operator or the end of the expression, found \'[\'', position: 1 });
  t.deepEqual(syntaxError('f(1, 2'), { message: "expected ')' or ',' in the call's arguments, found the end of the expression", position: 6 });
  t.deepEqual(syntaxError('1 2'), { message: 'expected an operator or the end of the expression, found the number 2', position: 2 });
  t.deepEqual(syntaxError('+1'), { message: "unary '+' is not part of the language; write the number itself", position: 0 });
  t.deepEqual(syntaxError('x => 1'), { message: "'=' is not part of the language (there is no assignment); to compare, write '=='", position: 2 });
  t.deepEqual(syntaxError('`t`'), { message: "unexpected character '`'", position: 0 });
  t.deepEqual(syntaxError('1e'), { message: "a number's exponent needs digits (like 1e-3)", position: 1 });
  t.deepEqual(syntaxError(''), { message: 'the expression ends where a value is expected', position: 0 });
});

test('deep nesting within the length limit parses (the limit bounds the depth)', (t) => {
  const deep = `${'('.repeat(499)}1${')'.repeat(499)}`;
  t.like(parseExpression(deep), { kind: 'number', value: 1 });
  const unary = `${'-'.repeat(999)}1`;
  t.is(parseExpression(unary).kind, 'unary');
});
