import type { EngineModel } from '../engine/simulator.ts';

/** A JSON value inside a definition that holds an expression: a JSON number or the expression's text. */
export type ExpressionSource = number | string;

export interface ModelVariable {
  readonly name: string;
  readonly initial: ExpressionSource;
  readonly next: ExpressionSource;
}

export interface ModelField {
  readonly name: string;
  readonly type: 'integer' | 'number' | 'string';
  readonly value: ExpressionSource;
  /** 0..12: rounds a number field's value to this many decimals (half away from zero). */
  readonly decimals?: number;
  readonly description?: string;
}

export interface ModelEvent {
  readonly type: string;
  readonly description: string;
  readonly effect?: string;
  /** param -> expression: inside the event's window the param takes this value. */
  readonly set?: Readonly<Record<string, ExpressionSource>>;
  /** A state: at the window's first step the state is this one (no transition is drawn). */
  readonly enter?: string;
}

export interface ModelClock {
  readonly step_seconds: ExpressionSource;
  readonly start_offset_seconds: ExpressionSource;
}

/** The JSON definition of docs/models.md#the-definition (the body of PUT /v1/models/{name}), after checking. */
export interface ModelDefinition {
  readonly description: string;
  readonly states: readonly string[];
  readonly initial: string | Readonly<Record<string, ExpressionSource>>;
  readonly terminal?: readonly string[];
  readonly max_steps: number;
  readonly profiles: Readonly<Record<string, Readonly<Record<string, number>>>>;
  readonly default_profile?: string;
  readonly variables?: readonly ModelVariable[];
  readonly transitions: Readonly<Record<string, Readonly<Record<string, ExpressionSource>>>>;
  readonly fields: readonly ModelField[];
  readonly events?: readonly ModelEvent[];
  readonly clock?: ModelClock;
}

/** One problem (or warning) of a definition: a JSON path into it and a sentence a person can act on. */
export interface ModelIssue {
  /** Like `transitions.Trial.Active` or `fields[2].value`. */
  readonly path: string;
  readonly message: string;
}

export interface ModelCheck {
  readonly valid: boolean;
  /** Every problem at once; empty when valid. */
  readonly issues: readonly ModelIssue[];
  readonly warnings: readonly ModelIssue[];
  /** Present when valid. */
  readonly definition?: ModelDefinition;
}

/** A checked definition compiled once (cache it by digest); runs through createSimulation's `model`. */
export interface CompiledModel {
  readonly name: string;
  /** `sha256:` + hex of the canonical definition. */
  readonly digest: string;
  readonly definition: ModelDefinition;
  /** The model as the engine runs it (its record fields, states, simulator factory). */
  readonly engine: EngineModel;
  /** Expression nodes in the compiled model: a record costs at most a constant times this many. */
  readonly nodeCount: number;
}

export interface ModelRecordField {
  readonly name: string;
  readonly type: 'integer' | 'number' | 'string';
  readonly description: string;
  readonly nullable: boolean;
}

/** The catalog block of the Model resource: the Preset resource's fields for the model. */
export interface ModelCatalog {
  readonly description: string;
  readonly default_profile: string;
  readonly supported_profiles: string[];
  readonly supported_states: string[];
  readonly record_fields: ModelRecordField[];
  readonly state_transitions: Record<string, string[]>;
  readonly scenario_events: { type: string; description: string; effect: string }[];
  readonly engine_versions: string[];
}

export interface ModelFieldSummary {
  readonly mean: number | null;
  readonly min: number | null;
  readonly max: number | null;
  readonly nulls: number;
}

/** POST /v1/models/validate's `sample`. */
export interface ModelSample {
  readonly records: Record<string, number | string | null>[];
  readonly summary: {
    readonly records: number;
    /** state -> share of the records in it. */
    readonly states: Record<string, number>;
    readonly fields: Record<string, ModelFieldSummary>;
  };
}
