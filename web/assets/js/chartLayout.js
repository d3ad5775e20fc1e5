import { sequenceGaps, sequenceStarts, stateRuns } from './chartPlugins.js';
import { eventWindows } from './scenarioBands.js';

// Where a run's records go on the chart's x axis (docs/console.md "Run", how to read the charts):
// - engines 1 to 3 have no clock: x is the interaction, a sequence after another, lines broken between
//   subjects, their states banded behind;
// - engine 4's records carry event_time: x is the event time (a real UTC time axis) in either order, and
//   each sequence (one subject) is its own line. In order "sequence" the subjects overlap in time just as
//   in order "time" (the order of the listing is not the order of the world), so both draw the same picture
//   of the same records. States are banded behind the lines where no two subjects overlap; where they do,
//   the bands are one subject's (runsBySequence), the one the reader points at.
// Both layouts give the points in x order: xs, the run's record and the counterfactual's at each point (or
// null), the sequence of each, the state bands, the sequence starts, the scenario windows and the zoom
// onto the first window.

/** How far either side of an event window the chart opens: twice its length, at least 20 records in all. */
const windowMargin = (length) => Math.max(2 * length, Math.ceil((20 - length) / 2), 2);

/** The x range around the first event window, or null for the whole run (a window that is most of it). */
const zoomOrWhole = (min, max, lowest, highest) => (max - min >= (highest - lowest) * 0.8 ? null : { min, max });

/** Engines 1–3: the interaction axis. */
export const interactionLayout = (records, counterfactual) => {
  const xs = records.map((record) => record.interaction_id);
  const starts = sequenceStarts(records);
  const windows = eventWindows(records).map((window) => ({ ...window, x0: window.from - 0.5, x1: window.to + 0.5 }));
  const first = windows[0];
  let zoom = null;
  if (first !== undefined) {
    const margin = windowMargin(first.to - first.from + 1);
    zoom = zoomOrWhole(Math.max(xs[0], first.from - margin), Math.min(xs.at(-1), first.to + margin), xs[0], xs.at(-1));
  }
  return {
    axis: 'interaction',
    xs,
    rows: records,
    shadows: counterfactual ?? records.map(() => null),
    sequences: records.map((record) => record.sequence_id),
    runs: stateRuns(records).map((run) => ({ state: run.state, x0: run.from - 0.5, x1: run.to + 0.5 })),
    runsBySequence: null,
    startXs: starts.map((index) => records[index].interaction_id - 0.5),
    windows,
    zoom,
    overlap: false,
    sequenceCount: records.length === 0 ? 0 : starts.length + 1,
    gaps: sequenceGaps(starts),
  };
};

/** Each sequence's records (indexes into `records`), in the order they happened. */
const bySequence = (records) => {
  const groups = new Map();
  records.forEach((record, index) => {
    const group = groups.get(record.sequence_id);
    if (group === undefined) {
      groups.set(record.sequence_id, [index]);
    } else {
      group.push(index);
    }
  });
  return groups;
};

/**
 * Engine 4: the event-time axis, x in milliseconds. A record's stretch of time reaches halfway to its
 * subject's previous and next records (as an interaction's reaches half an interaction either side).
 */
export const timeLayout = (records, counterfactual) => {
  const times = records.map((record) => Date.parse(record.event_time));
  const groups = bySequence(records);
  const before = new Array(records.length);
  const after = new Array(records.length);
  const stepOf = new Array(records.length);
  const spans = [];
  for (const indexes of groups.values()) {
    indexes.forEach((index, step) => {
      const previous = indexes[step - 1];
      const next = indexes[step + 1];
      const time = times[index];
      before[index] = previous === undefined ? time : (times[previous] + time) / 2;
      after[index] = next === undefined ? time : (time + times[next]) / 2;
      stepOf[index] = step;
    });
    spans.push([times[indexes[0]], times[indexes.at(-1)]]);
  }
  // Subjects overlap when one begins before another has ended.
  spans.sort((a, b) => a[0] - b[0]);
  let reach = -Infinity;
  let overlap = false;
  for (const [from, to] of spans) {
    overlap ||= from < reach;
    reach = Math.max(reach, to);
  }

  // The points: each record at its event time with the counterfactual's record at its place when that
  // happened at the same instant; a counterfactual record at another instant (a scenario that moved the
  // subject's clock) is a point of its own.
  const points = records.map((record, index) => {
    const other = counterfactual?.[index] ?? null;
    const same = other !== null && other.event_time === record.event_time;
    return { x: times[index], sequence: record.sequence_id, row: record, shadow: same ? other : null, order: 0 };
  });
  counterfactual?.forEach((other, index) => {
    if (other !== null && other.event_time !== records[index].event_time) {
      points.push({ x: Date.parse(other.event_time), sequence: other.sequence_id, row: null, shadow: other, order: 1 });
    }
  });
  points.sort((a, b) => a.x - b.x || a.sequence - b.sequence || a.order - b.order);

  // Each subject's stretches of one state; all of them banded when no two subjects overlap, else one
  // subject's at a time (the chart picks whose).
  const runsBySequence = new Map();
  const startXs = [];
  for (const [sequence, indexes] of groups) {
    const own = [];
    let from = indexes[0];
    indexes.forEach((index, step) => {
      const next = indexes[step + 1];
      if (next === undefined || records[next].state !== records[index].state) {
        own.push({ state: records[index].state, x0: before[from], x1: after[index] });
        from = next;
      }
    });
    runsBySequence.set(sequence, own);
    startXs.push(times[indexes[0]]);
  }
  startXs.sort((a, b) => a - b);
  startXs.shift();

  const windows = eventWindows(records)
    .map((window) => ({ ...window, x0: before[window.fromIndex], x1: after[window.toIndex] }))
    .sort((a, b) => a.x0 - b.x0);
  const first = windows[0];
  const lowest = points[0]?.x ?? 0;
  const highest = points.at(-1)?.x ?? 0;
  let zoom = null;
  if (first !== undefined) {
    // The window's own subject, a few window lengths either side, as on the interaction axis.
    const own = groups.get(first.sequence);
    const margin = windowMargin(first.toStep - first.fromStep + 1);
    const from = own[Math.max(0, stepOf[first.fromIndex] - margin)];
    const to = own[Math.min(own.length - 1, stepOf[first.toIndex] + margin)];
    zoom = zoomOrWhole(Math.min(times[from], first.x0), Math.max(times[to], first.x1), lowest, highest);
  }
  return {
    axis: 'time',
    xs: points.map((point) => point.x),
    rows: points.map((point) => point.row),
    shadows: points.map((point) => point.shadow),
    sequences: points.map((point) => point.sequence),
    runs: overlap ? [] : [...runsBySequence.values()].flat(),
    runsBySequence,
    startXs: overlap ? [] : startXs,
    windows,
    zoom,
    overlap,
    sequenceCount: groups.size,
    gaps: null,
  };
};
