import { CounterRng } from './counterRng.ts';
import { parseTimestamp } from './parseTimestamp.ts';
import { placeRandomEvents } from './placeRandomEvents.ts';
import { type PlacedEvent, SCENARIO_LIMITS, type Scenario, type ScenarioEvent, type ScenarioOutcome } from './scenario.ts';

// Random events draw from a key of their own (the run's, with two words changed), so placing them
// consumes none of the model's numbers: a random scenario's counterfactual is the run without it.
const RANDOM_KEY_0 = 0x6a09e667;
const RANDOM_KEY_1 = 0xbb67ae85;

/** A step no sequence reaches: an at_time event's start until its sequence is placed in time. */
export const NEVER = 0x7fffffff;

// What a schedule without events holds: empty arrays, shared because nothing is ever written to them. An
// engine-4 run in time order makes a simulator, and so a schedule, per live subject (10,000 of them with
// the largest population), and a typed array costs more to make than a subject's whole sequence.
const NO_INTS = new Int32Array(0);
const NO_FLOATS = new Float64Array(0);
const NO_FLAGS = new Uint8Array(0);

/**
 * A scenario's events as a run's simulator asks about them: which event, if any, is active at a step of a
 * sequence. Where events overlap, the first listed is the active one (it labels the record and drives its
 * dynamics), so a record's scenario_event always names what shaped it; random events rank after every
 * listed one and are placed clear of them. `enter` is called once per sequence, so the per-step question
 * only looks at the events targeting that sequence: a run without a scenario pays one comparison per record.
 *
 * It also keeps what the run made of the scenario (`outcome`): which events labelled a record, noted the
 * first time each is active in a sequence, so the result can say so without holding the run.
 */
export class ScenarioSchedule {
  /**
   * Per event, its type's index in the preset's types and its intensity: the listed events in scenario
   * order, then the current sequence's random ones (rewritten by `enter`).
   */
  readonly types: Int32Array;
  readonly intensities: Float64Array;
  private readonly listed: readonly ScenarioEvent[];
  private readonly random: Scenario['random'];
  private readonly typeNames: readonly string[];
  private readonly horizon: number;
  private readonly rng: CounterRng | undefined;
  private readonly sequences: Int32Array;
  private readonly starts: Int32Array;
  private readonly ends: Int32Array;
  private readonly durations: Int32Array;
  /** Per listed event: its at_time in milliseconds, NaN for an at_step event. */
  readonly atTimes: Float64Array;
  // The events targeting the current sequence, in rank order.
  private readonly current: Int32Array;
  private currentCount = 0;
  private sequenceId = 0;
  // Per event slot: whether it has labelled a record of the current sequence; per listed event: of any.
  private readonly seen: Uint8Array;
  private readonly labelled: Uint8Array;
  private readonly placed: PlacedEvent[] = [];
  // Engine 4 in time order makes a subject's record before the merge prints it, and the run may end
  // first: there the note of an event's first record waits until that record is printed (`confirm`), so
  // `placed` lists only events that labelled a record of the run (docs/scenarios.md).
  private holding = false;
  private held = -1;
  private heldEvent: PlacedEvent | undefined;

  /** `horizon`: the model's episode length, over which random events are spread. */
  constructor(scenario: Scenario | undefined, types: readonly string[], key: readonly [number, number, number, number], horizon: number) {
    const events = scenario?.events ?? [];
    this.listed = events;
    this.random = scenario?.random;
    this.typeNames = types;
    this.horizon = horizon;
    this.rng = this.random === undefined ? undefined : new CounterRng([key[0] ^ RANDOM_KEY_0, key[1] ^ RANDOM_KEY_1, key[2], key[3]]);
    const slots = events.length + (this.random === undefined ? 0 : Math.ceil(SCENARIO_LIMITS.maxPerSequence));
    const ints = (): Int32Array => (slots === 0 ? NO_INTS : new Int32Array(slots));
    this.types = ints();
    this.intensities = slots === 0 ? NO_FLOATS : new Float64Array(slots);
    // 0 stands for "all": sequence ids start at 1.
    this.sequences = ints();
    this.starts = ints();
    this.ends = ints();
    this.durations = ints();
    events.forEach((e, k) => {
      this.types[k] = types.indexOf(e.type);
      this.intensities[k] = e.intensity;
      this.sequences[k] = e.sequence === 'all' ? 0 : e.sequence;
      // An at_time event starts where its sequence reaches the instant (setStart); never until then.
      this.starts[k] = e.at_step ?? NEVER;
      this.ends[k] = e.at_step === undefined ? NEVER : e.at_step + e.duration;
      this.durations[k] = e.duration;
    });
    this.atTimes = slots === 0 ? NO_FLOATS : Float64Array.from(events, (e) => (e.at_time === undefined ? Number.NaN : (parseTimestamp(e.at_time) ?? Number.NaN)));
    this.current = ints();
    this.seen = slots === 0 ? NO_FLAGS : new Uint8Array(slots);
    this.labelled = slots === 0 ? NO_FLAGS : new Uint8Array(events.length);
  }

  /** Whether any sequence may be targeted: the scenario lists events or places random ones. */
  get hasEvents(): boolean {
    return this.types.length > 0;
  }

  /** Selects the events that target this sequence (placing its random ones); true when there is any. */
  enter(sequence: number): boolean {
    this.sequenceId = sequence;
    this.seen.fill(0);
    const listed = this.listed.length;
    let count = 0;
    for (let k = 0; k < listed; k++) {
      const target = this.sequences[k]!;
      if (target === 0 || target === sequence) this.current[count++] = k;
    }
    const random = this.random;
    if (random !== undefined) {
      const listedCount = count;
      let slot = listed;
      for (const event of placeRandomEvents(this.rng!, random, sequence, this.horizon)) {
        const start = event.at_step;
        const end = start + event.duration;
        // Kept min_gap clear of every listed event of the sequence, or left out (docs/scenarios.md).
        let clear = true;
        for (let i = 0; i < listedCount && clear; i++) {
          const k = this.current[i]!;
          clear = end + random.min_gap <= this.starts[k]! || this.ends[k]! + random.min_gap <= start;
        }
        if (!clear) continue;
        this.types[slot] = this.typeNames.indexOf(random.types[event.type]!);
        this.intensities[slot] = event.intensity;
        this.sequences[slot] = sequence;
        this.starts[slot] = start;
        this.ends[slot] = end;
        this.durations[slot] = event.duration;
        this.current[count++] = slot++;
      }
    }
    this.currentCount = count;
    return count > 0;
  }

  /** Whether event k targets `sequence`. */
  targets(k: number, sequence: number): boolean {
    const target = this.sequences[k]!;
    return target === 0 || target === sequence;
  }

  /** The event active at this step (1-based) of the entered sequence, or -1. */
  activeAt(step: number): number {
    for (let i = 0; i < this.currentCount; i++) {
      const k = this.current[i]!;
      if (step >= this.starts[k]! && step < this.ends[k]!) {
        if (this.seen[k] === 0) this.note(k);
        return k;
      }
    }
    return -1;
  }

  /**
   * Engine 4: where an at_time event starts in the sequence about to run (the step of its first record at
   * or after the instant; NEVER when the sequence does not reach it).
   */
  setStart(k: number, step: number): void {
    this.starts[k] = step;
    this.ends[k] = step === NEVER ? NEVER : step + this.durations[k]!;
  }

  /** The step at which event k started (its at_step). */
  startOf(k: number): number {
    return this.starts[k]!;
  }

  /** The last step of event k's window (the sequence may end before it). */
  lastStepOf(k: number): number {
    return this.ends[k]! - 1;
  }

  /** From now on a note waits for `confirm`: its record is made before it is known to be printed. */
  holdNotes(): void {
    this.holding = true;
  }

  /** The record made last was printed: the note it made, if any, counts. */
  confirm(): void {
    const event = this.heldEvent;
    if (event === undefined) return;
    this.heldEvent = undefined;
    this.record(this.held, event);
  }

  /** What the run has made of the scenario so far: at the run's end, the result's placed and unplaced. */
  outcome(): ScenarioOutcome {
    return { placed: this.placed, unplaced: this.listed.filter((_, k) => this.labelled[k] === 0) };
  }

  private note(k: number): void {
    this.seen[k] = 1;
    const event: PlacedEvent = {
      type: this.typeNames[this.types[k]!]!,
      sequence: this.sequenceId,
      at_step: this.starts[k]!,
      duration: this.ends[k]! - this.starts[k]!,
      intensity: this.intensities[k]!,
    };
    if (this.holding) {
      this.held = k;
      this.heldEvent = event;
    } else {
      this.record(k, event);
    }
  }

  private record(k: number, event: PlacedEvent): void {
    if (k < this.listed.length) this.labelled[k] = 1;
    this.placed.push(event);
  }
}
