// uPlot plugins and options shared by the console's charts: state bands behind the lines, breaks between
// sequences, and a legend that always shows values (the latest point until the pointer says otherwise).

/** Consecutive records in one state, as [from, to] interaction ids. */
export const stateRuns = (records) => {
  const runs = [];
  for (const record of records) {
    const last = runs.at(-1);
    if (last !== undefined && last.state === record.state) {
      last.to = record.interaction_id;
    } else {
      runs.push({ state: record.state, from: record.interaction_id, to: record.interaction_id });
    }
  }
  return runs;
};

/** Indexes of the records that begin a new sequence (a new simulated subject), the first record excepted. */
export const sequenceStarts = (records) => {
  const starts = [];
  for (let index = 1; index < records.length; index += 1) {
    if (records[index].sequence_id !== records[index - 1].sequence_id) {
      starts.push(index);
    }
  }
  return starts;
};

/**
 * A series `gaps` option that breaks the line wherever a sequence ends: a new subject's values start
 * afresh, and a line joining the last value of one subject to the first of the next (a portfolio "jumping"
 * from 18k to 185k) would show something that never happened. uPlot clips gaps out of the stroke in
 * canvas pixels; each break is at least one device pixel wide so it survives dense runs too.
 */
export const sequenceGaps = (starts) => (u, seriesIndex, idx0, idx1, nullGaps) => {
  const xs = u.data[0];
  const gaps = [...nullGaps];
  for (const start of starts) {
    if (start <= idx0 || start > idx1) {
      continue;
    }
    const from = u.valToPos(xs[start - 1], 'x', true);
    const to = u.valToPos(xs[start], 'x', true);
    gaps.push([from, Math.max(to, from + devicePixelRatio)]);
  }
  gaps.sort((a, b) => a[0] - b[0]);
  // clipGaps expects them ordered and apart: overlapping ones are merged.
  const merged = [];
  for (const gap of gaps) {
    const last = merged.at(-1);
    if (last !== undefined && gap[0] <= last[1]) {
      last[1] = Math.max(last[1], gap[1]);
    } else {
      merged.push([gap[0], gap[1]]);
    }
  }
  return merged;
};

/**
 * A series `paths` builder that draws each sequence as its own line: on a time axis the subjects' records
 * interleave, and one line through them all would zigzag from subject to subject. `sequences[i]` is the
 * sequence of point i; a point with no value (null) belongs to the other series. A subject with a single
 * point in the run gets a short tick, so it is not lost. The whole run is walked (not only the points in
 * view) so a line that enters the view from the left is drawn; the plot clips it.
 */
export const sequencePaths = (sequences) => (u, seriesIndex) => {
  const xs = u.data[0];
  const ys = u.data[seriesIndex];
  const scale = u.series[seriesIndex].scale;
  const stroke = new Path2D();
  const previous = new Map();
  const alone = new Map();
  for (let index = 0; index < xs.length; index += 1) {
    const value = ys[index];
    if (value === null || value === undefined) {
      continue;
    }
    const x = u.valToPos(xs[index], 'x', true);
    const y = u.valToPos(value, scale, true);
    const last = previous.get(sequences[index]);
    if (last === undefined) {
      alone.set(sequences[index], [x, y]);
    } else {
      stroke.moveTo(last[0], last[1]);
      stroke.lineTo(x, y);
      alone.delete(sequences[index]);
    }
    previous.set(sequences[index], [x, y]);
  }
  for (const [x, y] of alone.values()) {
    stroke.moveTo(x - 2 * devicePixelRatio, y);
    stroke.lineTo(x + 2 * devicePixelRatio, y);
  }
  return { stroke, fill: null, clip: null, band: null, gaps: null, flags: 0 };
};

/**
 * A `draw` hook that strokes one sequence's points again, bolder, over the others: on a time axis where
 * subjects overlap, the subject whose states are banded (`sequenceOf()`). `lines` are the series to
 * stroke, as { index, color }; `sequences[i]` is the sequence of point i.
 */
export const boldLinesOf = (sequenceOf, sequences, lines) => (u) => {
  const { ctx, bbox } = u;
  const xs = u.data[0];
  const focused = sequenceOf();
  ctx.save();
  ctx.beginPath();
  ctx.rect(bbox.left, bbox.top, bbox.width, bbox.height);
  ctx.clip();
  ctx.lineWidth = 3 * devicePixelRatio;
  ctx.lineJoin = 'round';
  for (const { index: seriesIndex, color } of lines) {
    const series = u.series[seriesIndex];
    if (!series.show) {
      continue;
    }
    const values = u.data[seriesIndex];
    ctx.strokeStyle = color;
    ctx.beginPath();
    let started = false;
    for (let index = 0; index < xs.length; index += 1) {
      if (sequences[index] === focused && values[index] !== null && values[index] !== undefined) {
        const x = u.valToPos(xs[index], 'x', true);
        const y = u.valToPos(values[index], series.scale, true);
        if (started) {
          ctx.lineTo(x, y);
        } else {
          ctx.moveTo(x, y);
          started = true;
        }
      }
    }
    ctx.stroke();
  }
  ctx.restore();
};

/**
 * State bands behind grid and lines, and dashed lines where a sequence starts (unless too many to read).
 * `runsOf()` gives the bands to draw now, { state, x0, x1 }, and starts are x positions, in the x scale's
 * own units (interactions, or milliseconds on a time axis): the caller knows where a state's stretch
 * begins and ends, and whose stretches to show.
 */
export const bandsPlugin = (runsOf, colors, startXs) => ({
  hooks: {
    // drawClear runs after the canvas is cleared and before grid and series: the bands sit behind both.
    drawClear: [
      (u) => {
        const { ctx, bbox } = u;
        ctx.save();
        ctx.beginPath();
        ctx.rect(bbox.left, bbox.top, bbox.width, bbox.height);
        ctx.clip();
        for (const run of runsOf()) {
          const x0 = u.valToPos(run.x0, 'x', true);
          const x1 = u.valToPos(run.x1, 'x', true);
          if (x1 < bbox.left || x0 > bbox.left + bbox.width) {
            continue;
          }
          ctx.fillStyle = colors.get(run.state) ?? '#eeeeee';
          ctx.fillRect(x0, bbox.top, Math.max(1, x1 - x0), bbox.height);
        }
        if (startXs.length > bbox.width / (24 * devicePixelRatio)) {
          ctx.restore();
          return;
        }
        ctx.strokeStyle = '#4b5563';
        ctx.lineWidth = Math.max(1, devicePixelRatio);
        ctx.setLineDash([4 * devicePixelRatio, 4 * devicePixelRatio]);
        ctx.beginPath();
        for (const start of startXs) {
          const x = Math.round(u.valToPos(start, 'x', true)) + 0.5;
          ctx.moveTo(x, bbox.top);
          ctx.lineTo(x, bbox.top + bbox.height);
        }
        ctx.stroke();
        ctx.restore();
      },
    ],
  },
});

/**
 * The legend shows the values at the latest point whenever the pointer is not on the chart (at first, and
 * after it leaves), instead of uPlot's "--": the end of the run is what a reader looks at first.
 */
export const latestLegendPlugin = () => {
  const showLatest = (u) => {
    const last = u.data[0].length - 1;
    if (last >= 0) {
      u.setLegend({ idx: last }, false);
    }
  };
  return {
    hooks: {
      ready: [showLatest],
      setLegend: [
        (u) => {
          if (u.legend.idx === null || u.legend.idx === undefined) {
            showLatest(u);
          }
        },
      ],
    },
  };
};

// uPlot's axis font and spacing (its defaults): a value axis is as wide as its widest label plus these.
const AXIS_FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif';
const TICK_AND_GAP = 10 + 5;
let measurer = null;

/**
 * The width a value axis needs for these labels, in CSS pixels: a fixed size cut "100,000" to "00,000".
 * Panels that share an x axis take the size of all their labels, so their plot areas stay aligned.
 */
export const axisSizeFor = (labels) => {
  measurer ??= document.createElement('canvas').getContext('2d');
  measurer.font = AXIS_FONT;
  const widest = Math.max(0, ...labels.map((label) => measurer.measureText(String(label)).width));
  return Math.ceil(widest + TICK_AND_GAP + 4);
};
