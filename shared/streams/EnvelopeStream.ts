import { CounterRng } from '../engine/counterRng.ts';
import { createSimulation } from '../engine/createSimulation.ts';
import { hashSeed } from '../engine/hashSeed.ts';
import { byteChunk, putChunk } from '../engine/byteChunk.ts';
import { recordLayout, type RecordLayout } from '../engine/recordLayout.ts';
import { writeInteger } from '../engine/writeInteger.ts';
import { writeRecord } from '../engine/writeRecord.ts';
import { DeliveryHeap, type PendingDelivery } from './DeliveryHeap.ts';
import { HeldRecords } from './HeldRecords.ts';
import type { PresetName } from '../engine/presetTypes.ts';
import { compiledModelOf } from '../models/compiledModelOf.ts';
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

// The envelope's constant text around its numbers and its record (docs/streams.md, "The envelope").
const POSITION = byteChunk('{"position":');
const RECORD = byteChunk(',"record":');
const DELAY = byteChunk(',"delay_ms":');
const ORIGINAL_END = byteChunk(',"duplicate":false}');
const DUPLICATE_END = byteChunk(',"duplicate":true}');
/** Bytes of an envelope besides its record: the text above and two integers of up to 17 characters. */
const ENVELOPE_BYTES = 12 + 10 + 12 + 19 + 2 * 17;
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
  private readonly eventTimeSlot: number;
  private readonly values: Float64Array;
  private readonly advance: () => void;
  private readonly rng: CounterRng;
  private readonly heap = new DeliveryHeap();
  private readonly layout: RecordLayout;
  private readonly held: HeldRecords;
  private made = 0;
  private delivered = 0;
  /** The event time of the next record not yet made (its values are in `values`), or Infinity after the last. */
  private nextEventMs = Number.NEGATIVE_INFINITY;
  private readonly lateThreshold: number;
  private readonly duplicateThreshold: number;
  private readonly maxDelayMs: number;
  /** The envelope moveNext() moved to, until the next call; its record stays held until then. */
  private current: PendingDelivery | undefined;
  /** Room for one envelope, for next()'s text. */
  private scratch: Buffer | undefined;

  /** Upper bound of one envelope's bytes, with the byte writers' 4-byte overshoot: the room writeEnvelope needs. */
  readonly maxEnvelopeBytes: number;

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
    this.eventTimeSlot = model.fields.findIndex((field) => field.name === 'event_time');
    if (this.eventTimeSlot < 0) throw new RangeError('a stream needs an engine whose records carry event_time');
    this.values = simulator.values;
    this.advance = () => simulator.next();
    this.rng = disorderRng(input);
    this.lateThreshold = input.disorder.late_share;
    this.duplicateThreshold = input.disorder.duplicate_share;
    this.maxDelayMs = input.disorder.max_delay_s * 1000;
    this.layout = recordLayout(model, 'json');
    this.held = new HeldRecords(model.fields.length);
    this.maxEnvelopeBytes = ENVELOPE_BYTES + this.layout.maxRecordBytes;
  }

  /**
   * Moves to the next envelope: true, and `position`, `dueMs`, `duplicate` and writeEnvelope() describe it
   * until the next call; false after the last one. Nothing is printed until asked for (a worker's clock
   * needs only the due times).
   */
  moveNext(): boolean {
    if (this.current !== undefined) this.held.release(this.current.slot);
    this.current = this.pop();
    if (this.current === undefined) return false;
    this.delivered += 1;
    return true;
  }

  /** 1-based place of the current envelope in the delivery order. */
  get position(): number {
    return this.delivered;
  }

  /** ms after the stream's created_at at which the current envelope is due: (delivery time − start_time) / speed. */
  get dueMs(): number {
    return (this.current!.deliveryMs - this.input.startTime) / this.input.speed;
  }

  /** Whether the current envelope is a record's second delivery. */
  get duplicate(): boolean {
    return this.current!.copy === 1;
  }

  /**
   * Prints the current envelope's JSON, `{"position","record","delay_ms","duplicate"}`, at `pos` and returns
   * the position after it; the record is the one a simulation's JSON body prints (the engine's byte writer,
   * writeRecordChunks' layout). Needs `maxEnvelopeBytes` of room; may leave up to three bytes of garbage
   * past the returned position, which the caller's next write overwrites.
   */
  writeEnvelope(view: DataView, pos: number): number {
    const top = this.current!;
    pos = writeInteger(view, putChunk(view, pos, POSITION), this.delivered);
    pos = writeRecord(view, putChunk(view, pos, RECORD), this.layout, this.held.values, top.slot * this.layout.kinds.length);
    pos = writeInteger(view, putChunk(view, pos, DELAY), top.deliveryMs - top.eventMs);
    return putChunk(view, pos, top.copy === 1 ? DUPLICATE_END : ORIGINAL_END);
  }

  /** The current envelope's JSON text (what writeEnvelope prints). */
  currentJson(): string {
    this.scratch ??= Buffer.allocUnsafe(this.maxEnvelopeBytes);
    const end = this.writeEnvelope(new DataView(this.scratch.buffer, this.scratch.byteOffset, this.scratch.length), 0);
    return this.scratch.toString('utf8', 0, end);
  }

  /** The next envelope with its JSON text, or undefined after the last one. */
  next(): Envelope | undefined {
    if (!this.moveNext()) return undefined;
    return { position: this.delivered, dueMs: this.dueMs, duplicate: this.duplicate, json: this.currentJson() };
  }

  /** Skips to just after `position` (a resume); false when the stream has fewer envelopes. */
  skipTo(position: number): boolean {
    while (this.delivered < position) {
      if (!this.moveNext()) return false;
    }
    return true;
  }

  /** The next delivery in order: the smallest waiting one once no record still to come can be delivered before it. */
  private pop(): PendingDelivery | undefined {
    if (this.nextEventMs === Number.NEGATIVE_INFINITY) this.makeRecord();
    for (;;) {
      const top = this.heap.peek();
      if (top !== undefined && top.deliveryMs <= this.nextEventMs) return this.heap.pop();
      if (this.nextEventMs === Number.POSITIVE_INFINITY) return undefined;
      this.queueRecord();
      this.makeRecord();
    }
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

  /** The record in `values` into the heap, with its drawn delay and, maybe, its copy; its values held until delivered. */
  private queueRecord(): void {
    const values = this.values;
    const interactionId = values[1]!;
    const eventMs = this.nextEventMs;
    const rng = this.rng;
    rng.subject(interactionId);
    rng.at(0);
    // A delay of 1 ms up to max_delay_s: a late record is never on time.
    const delay = rng.uniform(SLOT_LATE) < this.lateThreshold ? 1 + Math.floor(rng.uniform(SLOT_DELAY) * this.maxDelayMs) : 0;
    const duplicated = rng.uniform(SLOT_DUPLICATE) < this.duplicateThreshold;
    const slot = this.held.hold(values, duplicated ? 2 : 1);
    this.heap.push({ deliveryMs: eventMs + delay, interactionId, copy: 0, eventMs, slot });
    if (duplicated) {
      const extra = Math.floor(rng.uniform(SLOT_COPY_DELAY) * this.maxDelayMs);
      this.heap.push({ deliveryMs: eventMs + delay + extra, interactionId, copy: 1, eventMs, slot });
    }
  }
}
