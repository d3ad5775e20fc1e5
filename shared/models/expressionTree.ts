/**
 * The tree of one expression (docs/models.md, "Expressions"). Every node carries the offsets of its text
 * (`start` inclusive, `end` exclusive, in UTF-16 code units of the expression), so the checker can name
 * the character a problem starts at.
 */
export type BinaryOperator = '+' | '-' | '*' | '/' | '%' | '**' | '==' | '!=' | '<' | '<=' | '>' | '>=' | '&&' | '||';

interface At {
  readonly start: number;
  readonly end: number;
}

export type ExpressionNode =
  | (At & { readonly kind: 'number'; readonly value: number })
  | (At & { readonly kind: 'string'; readonly value: string })
  | (At & { readonly kind: 'boolean'; readonly value: boolean })
  | (At & { readonly kind: 'identifier'; readonly name: string })
  | (At & { readonly kind: 'unary'; readonly operator: '-' | '!'; readonly operand: ExpressionNode })
  | (At & { readonly kind: 'binary'; readonly operator: BinaryOperator; readonly left: ExpressionNode; readonly right: ExpressionNode })
  | (At & { readonly kind: 'conditional'; readonly test: ExpressionNode; readonly consequent: ExpressionNode; readonly alternate: ExpressionNode })
  | (At & { readonly kind: 'call'; readonly callee: string; readonly args: readonly ExpressionNode[] })
  | (At & { readonly kind: 'array'; readonly elements: readonly ExpressionNode[] });

/** A syntax error: what is wrong, and the offset it was found at. */
export class ExpressionSyntaxError extends Error {
  readonly position: number;

  constructor(message: string, position: number) {
    super(message);
    this.position = position;
  }
}
