import type { BuiltinIdentifier } from './modelFunctions.ts';

export type ValueType = 'number' | 'string' | 'boolean';

/** An expression's type; a string's also the finite set of values it can take (strings come only from literals, states and events). */
export interface Typed {
  readonly type: ValueType;
  readonly values?: ReadonlySet<string>;
}

export interface ScopeField {
  readonly index: number;
  readonly type: 'integer' | 'number' | 'string';
  /** A string field's possible values, known once its value is checked. */
  values?: ReadonlySet<string>;
}

/**
 * What an identifier may mean in one place of a definition (docs/models.md, "Identifiers"): which
 * built-ins, which variables (all, or only those listed before), which fields (only those listed before).
 */
export interface ExpressionScope {
  /** The place, for messages: "a transition weight", "the value of field 'x'". */
  readonly place: string;
  readonly params: ReadonlyMap<string, number>;
  readonly variables: ReadonlyMap<string, number>;
  /** Variables with an index below this are visible (Infinity: all; 0: none). */
  readonly variablesBefore: number;
  /** Why a variable is not visible here, for the message. */
  readonly variablesNote: string;
  readonly fields: ReadonlyMap<string, ScopeField>;
  /** Fields with an index below this are visible (only in a field's value). */
  readonly fieldsBefore: number;
  readonly builtins: ReadonlySet<BuiltinIdentifier>;
  readonly states: readonly string[];
  readonly eventTypes: readonly string[];
  /** Params read anywhere (for the unused-param warning). */
  readonly usedParams: Set<string>;
}
