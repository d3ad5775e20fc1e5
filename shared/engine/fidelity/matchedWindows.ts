import type { SampleColumns } from './sampleColumns.ts';

/**
 * One targeted sequence of a matched pair of runs (same preset, profile, seed and engine; one with a
 * scenario): the rows of the event's window in the scenario run, and the rows at the same steps of the
 * same sequence in the run without it (where that sequence lasts that long).
 */
export interface MatchedWindow {
  /** Every row of the window in the scenario run. */
  readonly window: readonly number[];
  /** The window's rows whose step the control run's sequence reaches, and those steps' control rows. */
  readonly treated: readonly number[];
  readonly control: readonly number[];
}

/** First row of every sequence, and one past the last row, keyed by sequence_id. */
function sequenceRanges(columns: SampleColumns): Map<number, [number, number]> {
  const sequence = columns.column('sequence_id');
  const ranges = new Map<number, [number, number]>();
  let start = 0;
  for (let i = 1; i <= columns.length; i++) {
    if (i < columns.length && sequence[i] === sequence[start]) continue;
    ranges.set(sequence[start]!, [start, i]);
    start = i;
  }
  return ranges;
}

/**
 * The windows of event type `type` (its index in scenario_event's values) in `treated`, each matched with
 * the same steps of the same subject in `control`. Only sequences whole in both runs count: a run's last
 * sequence may be cut by num_interactions.
 */
export function matchedWindows(control: SampleColumns, treated: SampleColumns, type: number): MatchedWindow[] {
  const controlRanges = sequenceRanges(control);
  const treatedRanges = sequenceRanges(treated);
  const lastControl = control.column('sequence_id')[control.length - 1]!;
  const lastTreated = treated.column('sequence_id')[treated.length - 1]!;
  const event = treated.column('scenario_event');
  const windows: MatchedWindow[] = [];
  for (const [id, [start, end]] of treatedRanges) {
    if (id >= lastControl || id >= lastTreated) continue;
    const [controlStart, controlEnd] = controlRanges.get(id)!;
    const window: number[] = [];
    const rows: number[] = [];
    const matched: number[] = [];
    for (let i = start; i < end; i++) {
      if (event[i] !== type) continue;
      window.push(i);
      const j = controlStart + (i - start);
      if (j < controlEnd) {
        rows.push(i);
        matched.push(j);
      }
    }
    if (window.length > 0) windows.push({ window, treated: rows, control: matched });
  }
  return windows;
}
