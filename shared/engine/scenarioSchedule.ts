import { parseTimestamp } from './parseTimestamp.ts';
import type { Scenario } from './scenario.ts';

/** A step no sequence reaches: an at_time event's start until its sequence is placed in time. */
export const NEVER = 0x7fffffff;

/**
 * A scenario's events as a run's simulator asks about them: which event, if any, is active at a step of a
 * sequence. Where events overlap, the first listed is the active one (it labels the record and drives its
 * dynamics), so a record's scenario_event always names what shaped it. `enter` is called once per
 * sequence, so the per-step question only looks at the events targeting that sequence: a run without a
 * scenario pays one comparison per record.
 */
export class ScenarioSchedule {
  /** Per event, in scenario order: its type's index in the preset's types, and its intensity. */
  readonly types: Int32Array;
  readonly intensities: Float64Array;
  private readonly sequences: Int32Array;
  private readonly starts: Int32Array;
  private readonly ends: Int32Array;
  private readonly durations: Int32Array;
  /** Per event: its at_time in milliseconds, NaN for an at_step event. */
  readonly atTimes: Float64Array;
  // The events targeting the current sequence, in scenario order.
  private readonly current: Int32Array;
  private currentCount = 0;

  constructor(scenario: Scenario | undefined, types: readonly string[]) {
    const events = scenario?.events ?? [];
    this.types = Int32Array.from(events, (e) => types.indexOf(e.type));
    this.intensities = Float64Array.from(events, (e) => e.intensity);
    // 0 stands for "all": sequence ids start at 1.
    this.sequences = Int32Array.from(events, (e) => (e.sequence === 'all' ? 0 : e.sequence));
    // An at_time event starts where its sequence reaches the instant (setStart); never until then.
    this.starts = Int32Array.from(events, (e) => e.at_step ?? NEVER);
    this.ends = Int32Array.from(events, (e) => (e.at_step === undefined ? NEVER : e.at_step + e.duration));
    this.durations = Int32Array.from(events, (e) => e.duration);
    this.atTimes = Float64Array.from(events, (e) => (e.at_time === undefined ? Number.NaN : (parseTimestamp(e.at_time) ?? Number.NaN)));
    this.current = new Int32Array(events.length);
  }

  /** Selects the events that target this sequence; true when there is any. */
  enter(sequence: number): boolean {
    let count = 0;
    for (let k = 0; k < this.sequences.length; k++) {
      const target = this.sequences[k]!;
      if (target === 0 || target === sequence) this.current[count++] = k;
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
      if (step >= this.starts[k]! && step < this.ends[k]!) return k;
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
}
