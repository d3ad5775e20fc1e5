import { CounterRng } from '../engine/counterRng.ts';
import { createSimulation } from '../engine/createSimulation.ts';
import { hashSeed } from '../engine/hashSeed.ts';
import type { FieldSpec } from '../engine/fieldSpec.ts';
import type { PresetName } from '../engine/presetTypes.ts';
import { compiledModelOf } from '../models/compiledModelOf.ts';
import { isoTimestamp } from '../engine/writeTimestamp.ts';
import { DeliveryHeap } from './DeliveryHeap.ts';
import type { StreamInput } from './StreamInput.ts';

/** One delivered event: its place, when it is due, and its envelope's JSON text. */
export interface Envelope {
  /** 1-based place in the delivery order. */
  readonly position: number;
  /** ms after the stream's created_at at which it is due: (delivery time − start_time) / speed. */
  readonly dueMs: number;
  readonly duplicate: boolean;
  /** `{"position","record","delay_ms","duplicate"}`, as the SSE `data:` line and a webhook batch print it. */
  readonly json: string;
}

/**
 * The disorder's generator of a stream: keyed apart from the run's, so the records equal the simulation's;
 * a model's by its digest, as its run is (shared/engine/runKey.ts), so two versions or two accounts' models
 * of one name draw apart.
 */
export const disorderRng = (input: Pick<StreamInput, 'preset' | 'model' | 'profile' | 'seed'>): CounterRng =>
  new CounterRng(hashSeed(input.model === undefined ? `stream:${input.preset}` : `stream:model:${input.model.digest}`, input.profile, input.seed));

/** Whether the record numbered `interactionId` is delivered twice (the draw EnvelopeStream makes). */
export const isDuplicated = (rng: CounterRng, interactionId: number, share: number): boolean => {
  rng.subject(interactionId);
  rng.at(0);
  return rng.uniform(SLOT_DUPLICATE) < share;
};

const POWERS_OF_TEN = [1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000];
// The disorder's draws, per record (its interaction_id is the subject of the counter generator).
const SLOT_LATE = 0;
const SLOT_DELAY = 1;
const SLOT_DUPLICATE = 2;
const SLOT_COPY_DELAY = 3;

/**
 * A stream's envelopes in delivery order (docs/streams.md#disorder): the engine's records
 * in event_time order (engine 4, order "time"), each given a delay (0, or for `late_share` of them up to
 * `max_delay_s`) and, for `duplicate_share`, a second delivery later still, all drawn from the seed by
 * interaction_id. A record is released once no record still to come can be delivered before it: records
 * come in event_time order and are never delivered before their event_time, so the smallest waiting
 * delivery time at or before the next record's event_time is final. Memory is the records within the
 * largest delay, never the stream. Pure: the same input yields the same bytes on any process or thread,
 * so a position is served again by making the stream again up to it (docs/development.md#code-conventions).
 */
export class EnvelopeStream {
  private readonly input: StreamInput;
  private readonly fields: readonly FieldSpec[];
  private readonly eventTimeSlot: number;
  private readonly values: Float64Array;
  private readonly advance: () => void;
  private readonly rng: CounterRng;
  private readonly heap = new DeliveryHeap();
  private made = 0;
  private delivered = 0;
  /** The event time of the next record not yet made (its values are in `values`), or Infinity after the last. */
  private nextEventMs = Number.NEGATIVE_INFINITY;
  private readonly lateThreshold: number;
  private readonly duplicateThreshold: number;
  private readonly maxDelayMs: number;

  constructor(input: StreamInput) {
    this.input = input;
    const { model, simulator } = createSimulation({
      // A model is compiled once per thread and version; a preset is the engine's own.
      ...(input.model === undefined ? { preset: input.preset as PresetName } : { model: compiledModelOf(input.model) }),
      profile: input.profile,
      seed: input.seed,
      numInteractions: input.numInteractions,
      serviceVersion: input.serviceVersion,
      ...(input.scenario === null ? {} : { scenario: input.scenario }),
      startTime: input.startTime,
      order: 'time',
      population: input.population,
    });
    this.fields = model.fields;
    this.eventTimeSlot = model.fields.findIndex((field) => field.name === 'event_time');
    if (this.eventTimeSlot < 0) throw new RangeError('a stream needs an engine whose records carry event_time');
    this.values = simulator.values;
    this.advance = () => simulator.next();
    this.rng = disorderRng(input);
    this.lateThreshold = input.disorder.late_share;
    this.duplicateThreshold = input.disorder.duplicate_share;
    this.maxDelayMs = input.disorder.max_delay_s * 1000;
  }

  /** The next envelope, or undefined after the last one. */
  next(): Envelope | undefined {
    if (this.nextEventMs === Number.NEGATIVE_INFINITY) this.makeRecord();
    for (;;) {
      const top = this.heap.peek();
      if (top !== undefined && top.deliveryMs <= this.nextEventMs) {
        this.heap.pop();
        const position = ++this.delivered;
        const duplicate = top.copy === 1;
        const delayMs = top.deliveryMs - top.eventMs;
        return {
          position,
          dueMs: (top.deliveryMs - this.input.startTime) / this.input.speed,
          duplicate,
          json: `{"position":${position},"record":${top.recordJson},"delay_ms":${delayMs},"duplicate":${duplicate}}`,
        };
      }
      if (this.nextEventMs === Number.POSITIVE_INFINITY) return undefined;
      this.queueRecord();
      this.makeRecord();
    }
  }

  /** Skips to just after `position` (a resume); false when the stream has fewer envelopes. */
  skipTo(position: number): boolean {
    while (this.delivered < position) {
      if (this.next() === undefined) return false;
    }
    return true;
  }

  private makeRecord(): void {
    if (this.made === this.input.numInteractions) {
      this.nextEventMs = Number.POSITIVE_INFINITY;
      return;
    }
    this.advance();
    this.made += 1;
    this.nextEventMs = this.values[this.eventTimeSlot]!;
  }

  /** The record in `values` into the heap, with its drawn delay and, maybe, its copy. */
  private queueRecord(): void {
    const values = this.values;
    const interactionId = values[1]!;
    const eventMs = this.nextEventMs;
    const recordJson = this.recordJson();
    const rng = this.rng;
    rng.subject(interactionId);
    rng.at(0);
    // A delay of 1 ms up to max_delay_s: a late record is never on time.
    const delay = rng.uniform(SLOT_LATE) < this.lateThreshold ? 1 + Math.floor(rng.uniform(SLOT_DELAY) * this.maxDelayMs) : 0;
    this.heap.push({ deliveryMs: eventMs + delay, interactionId, copy: 0, eventMs, recordJson });
    if (rng.uniform(SLOT_DUPLICATE) < this.duplicateThreshold) {
      const extra = Math.floor(rng.uniform(SLOT_COPY_DELAY) * this.maxDelayMs);
      this.heap.push({ deliveryMs: eventMs + delay + extra, interactionId, copy: 1, eventMs, recordJson });
    }
  }

  /** The record's JSON form, as the simulation's JSON body prints it (generateRecords' mapping). */
  private recordJson(): string {
    const fields = this.fields;
    const values = this.values;
    const record: Record<string, number | string | null> = {};
    for (let j = 0; j < fields.length; j++) {
      const field = fields[j]!;
      const x = values[j]!;
      record[field.name] =
        field.kind === 'enum' ? (x < 0 ? null : field.values[x]!)
        : field.kind === 'timestamp' ? isoTimestamp(x)
        : field.kind === 'decimal' ? x / POWERS_OF_TEN[field.decimals]!
        : x;
    }
    return JSON.stringify(record);
  }
}
