/**
 * The sequence bookkeeping every preset's simulator shares: sequence_id, interaction_id, the position in the
 * current sequence, and ending a sequence at its terminal state or its episode length so that the next
 * interaction opens a new one. It owns the common fields (slots 0-2 of `values`, see commonFields).
 *
 * A separate object rather than a base class of the simulators: `next()` is the engine's hot loop, and this
 * way the loads and stores here see one object shape whichever presets a thread has run, instead of one
 * per simulator class.
 */
export class SequenceCounter {
  sequenceId = 0;
  interactionId = 0;
  /** Interactions in the current sequence so far, the current one included (1 on its first). */
  step = 0;
  private ended = true;
  private readonly episodeLength: number;

  constructor(episodeLength: number) {
    this.episodeLength = episodeLength;
  }

  /** Counts one interaction; true when it opens a new sequence, whose subject the model then draws afresh. */
  begin(): boolean {
    this.interactionId++;
    if (this.ended) {
      this.sequenceId++;
      this.ended = false;
      this.step = 1;
      return true;
    }
    this.step++;
    return false;
  }

  /** True once the current sequence has ended: the next interaction opens a new one. */
  get sequenceEnded(): boolean {
    return this.ended;
  }

  /**
   * Makes the next interaction open sequence `sequenceId` (engine 4 positions a subject at its own sequence;
   * the addressed randomness draws the same numbers for it wherever it runs). interaction_id keeps counting.
   */
  seek(sequenceId: number): void {
    this.sequenceId = sequenceId - 1;
    this.ended = true;
  }

  /** Writes the common fields, and ends the sequence if `terminal` or at its episode length. */
  finish(values: Float64Array, state: number, terminal: boolean): void {
    values[0] = this.sequenceId;
    values[1] = this.interactionId;
    values[2] = state;
    if (terminal || this.step >= this.episodeLength) this.ended = true;
  }
}
