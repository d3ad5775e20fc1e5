import type { RunContext, Simulator } from '../engine/simulator.ts';
import { ScenarioSimulator } from '../engine/models/v3/ScenarioSimulator.ts';
import type { ScenarioEventType } from '../engine/scenario.ts';
import type { NumberCode, StringCode } from './compileExpression.ts';
import { ModelFrame } from './modelFrame.ts';
import { choiceIndex } from './randomDraws.ts';

/** How a field's value is written into its slot. */
export const WRITE_INTEGER = 0;
export const WRITE_NUMBER = 1;
export const WRITE_STRING = 2;

/** A model compiled into slots and closures: what every run of it shares (compileModel builds it once). */
export interface ModelProgram {
  readonly stateCount: number;
  readonly paramCount: number;
  readonly maxSteps: number;
  /** A fixed first state (>= 0), or -1: drawn from initialWeights. */
  readonly initialState: number;
  readonly initialTargets: Int32Array;
  readonly initialWeights: readonly NumberCode[];
  /** Per state: the listed next states (in `states` order) and their weights. */
  readonly transitionTargets: readonly Int32Array[];
  readonly transitionWeights: readonly (readonly NumberCode[])[];
  readonly terminal: Uint8Array;
  readonly variableInitials: readonly NumberCode[];
  readonly variableNexts: readonly NumberCode[];
  readonly fieldWrites: Int32Array;
  readonly fieldDecimals: Int32Array;
  readonly fieldNumbers: readonly NumberCode[];
  readonly fieldStrings: readonly StringCode[];
  /** Per string field: string id -> index in the field's values. */
  readonly fieldStringIndex: readonly Int32Array[];
  /** Per event type: the params it sets and their expressions, the state it enters (-1: none), its type's string id. */
  readonly eventSetParams: readonly Int32Array[];
  readonly eventSetValues: readonly (readonly NumberCode[])[];
  readonly eventEnter: Int32Array;
  readonly eventStringIds: Int32Array;
  /** The string id of '' (`event` outside every event). */
  readonly emptyStringId: number;
  readonly events: readonly ScenarioEventType[];
  /** Unused by engine 3: a later engine's clock reads these (docs/models.md#running-a-model). */
  readonly clock: { readonly stepSeconds: NumberCode; readonly startOffsetSeconds: NumberCode } | undefined;
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const POWERS_OF_TEN = Array.from({ length: 13 }, (_, d) => Math.pow(10, d));

/** Integer fields round half away from zero; non-finite values and those beyond 2^53 have no exact integer: null (NaN). */
function toInteger(x: number): number {
  const r = x < 0 ? -Math.round(-x) : Math.round(x);
  return r >= -MAX_SAFE && r <= MAX_SAFE ? r + 0 : Number.NaN;
}

function toNumber(x: number, decimals: number): number {
  if (!Number.isFinite(x)) return Number.NaN;
  if (decimals < 0) return x + 0;
  const scale = POWERS_OF_TEN[decimals]!;
  const scaled = x * scale;
  if (Math.abs(scaled) >= 9007199254740992) return x + 0;
  return (scaled < 0 ? -Math.round(-scaled) : Math.round(scaled)) / scale + 0;
}

/**
 * One run of a compiled model (docs/models.md#semantics-of-one-sequence): every
 * draw addressed by (run, sequence, step, slot) through engine 3's CounterRng, so matched counterfactuals
 * and the prefix rule hold as for presets. Slot 0 of a step is its state draw; call sites own the rest.
 */
export class ModelSimulator extends ScenarioSimulator<Float64Array> implements Simulator {
  readonly values: Float64Array;
  private readonly program: ModelProgram;
  private readonly frame: ModelFrame;
  private readonly setScratch: Float64Array;
  private readonly weights: Float64Array;
  private overridden = false;

  constructor(program: ModelProgram, profile: Float64Array, run: RunContext, variableCount: number) {
    super(profile, run, program.maxSteps, program.events);
    this.program = program;
    this.frame = new ModelFrame(this.rng, program.paramCount, variableCount, program.fieldWrites.length);
    this.frame.params.set(profile);
    this.values = new Float64Array(3 + program.fieldWrites.length + 1);
    this.setScratch = new Float64Array(program.paramCount);
    this.weights = new Float64Array(program.stateCount);
  }

  /**
   * Engine 4: the seconds the model's clock puts before the record just written (docs/models.md#running-a-model):
   * `start_offset_seconds` on a sequence's first record, `step_seconds` after (defaults 0 and 1),
   * evaluated on the record's frame like a field (modelClock.ts in shared/engine/eventTime).
   */
  clockSeconds(): number {
    const clock = this.program.clock;
    const first = this.sequence.step === 1;
    if (clock === undefined) return first ? 0 : 1;
    return (first ? clock.startOffsetSeconds : clock.stepSeconds)(this.frame);
  }

  /** Expression nodes evaluated so far (counted only when the model was compiled with countNodes). */
  get evaluatedNodes(): number {
    return this.frame.evaluated;
  }

  next(): void {
    const p = this.program;
    const f = this.frame;
    const counter = this.sequence;
    const opened = counter.begin();
    if (opened) {
      this.rng.subject(counter.sequenceId);
      this.targeted = this.schedule.enter(counter.sequenceId);
      f.sequence = counter.sequenceId;
    }
    const step = counter.step;
    this.rng.at(step);
    f.step = step;

    // The event in force at this record, and the params it sets (each from the profile's values).
    const k = this.eventAt(step);
    const type = k < 0 ? -1 : this.schedule.types[k]!;
    if (k < 0) {
      f.event = p.emptyStringId;
      f.intensity = 0;
    } else {
      f.event = p.eventStringIds[type]!;
      f.intensity = this.schedule.intensities[k]!;
    }
    const setParams = type < 0 ? undefined : p.eventSetParams[type]!;
    if (this.overridden) {
      f.params.set(this.profile);
      this.overridden = false;
    }
    if (setParams !== undefined && setParams.length > 0) {
      const codes = p.eventSetValues[type]!;
      for (let i = 0; i < setParams.length; i++) this.setScratch[i] = codes[i]!(f);
      for (let i = 0; i < setParams.length; i++) f.params[setParams[i]!] = this.setScratch[i]!;
      this.overridden = true;
    }

    // The state: an event's `enter` at its window's first step, else the initial draw or a transition.
    let state: number;
    if (type >= 0 && p.eventEnter[type]! >= 0 && this.schedule.startOf(k) === step) state = p.eventEnter[type]!;
    else if (opened) state = p.initialState >= 0 ? p.initialState : this.drawInitial();
    else state = this.drawTransition(f.state);
    f.prevState = opened ? state : f.state;
    f.state = state;

    // Variables in list order, in place: those before have their new values, own and later the previous.
    const variables = f.variables;
    const codes = opened ? p.variableInitials : p.variableNexts;
    for (let i = 0; i < codes.length; i++) variables[i] = codes[i]!(f);

    // Fields in list order, each as written (later fields read the written value).
    const values = this.values;
    const writes = p.fieldWrites;
    for (let j = 0; j < writes.length; j++) {
      const write = writes[j]!;
      if (write === WRITE_STRING) {
        const id = p.fieldStrings[j]!(f);
        f.strings[j] = id;
        values[3 + j] = p.fieldStringIndex[j]![id]!;
      } else {
        const x = p.fieldNumbers[j]!(f);
        const written = write === WRITE_INTEGER ? toInteger(x) : toNumber(x, p.fieldDecimals[j]!);
        f.numbers[j] = written;
        values[3 + j] = written;
      }
    }
    values[3 + writes.length] = type;
    counter.finish(values, state, p.terminal[state] === 1);
  }

  /** The first state from the initial weights (normalised, as choice's: all zero, each state alike). */
  private drawInitial(): number {
    const p = this.program;
    const weights = this.weights;
    const codes = p.initialWeights;
    for (let i = 0; i < codes.length; i++) weights[i] = codes[i]!(this.frame);
    return p.initialTargets[choiceIndex(this.rng, 0, weights.subarray(0, codes.length))]!;
  }

  /** The next state: each weight its probability (bad weights 0, a sum above 1 scaled to 1), the remainder stays. */
  private drawTransition(from: number): number {
    const p = this.program;
    const codes = p.transitionWeights[from]!;
    if (codes.length === 0) return from;
    const f = this.frame;
    // Weights see the state being left as both `state` and `prev_state`: the record being made follows it.
    f.prevState = from;
    const weights = this.weights;
    let total = 0;
    for (let i = 0; i < codes.length; i++) {
      const w = codes[i]!(f);
      const clean = w > 0 && w < Infinity ? w : 0;
      weights[i] = clean;
      total += clean;
    }
    const scale = total > 1 ? total : 1;
    let u = this.rng.uniform(0) * scale;
    const targets = p.transitionTargets[from]!;
    for (let i = 0; i < codes.length; i++) {
      const w = weights[i]!;
      if (u < w) return targets[i]!;
      u -= w;
    }
    return from;
  }
}
