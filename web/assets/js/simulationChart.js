import uPlot from '../vendor/uPlot.esm.js';
import { chartSpecFor, fieldLabel } from './chartSpec.js';
import { formatInteger, formatNumber, plural } from './format.js';

// Line colours hold at least 4.5:1 against white; the marker red is reserved for alerts.
export const LINE_COLORS = ['#1f5fbf', '#b45309', '#047857', '#7c3aed'];
const MARKER_COLOR = '#c0122c';
// Okabe–Ito (colour-blind safe), blended over white to light tints so lines stay readable on top.
// Ordered so that neighbouring states (in catalog order) get the most different tints.
const STATE_BASE = ['#56B4E9', '#E69F00', '#009E73', '#CC79A7', '#999999', '#F0E442', '#D55E00', '#0072B2'];
const TINT = 0.32;
const INTEGER_STEPS = [1, 2, 5].flatMap((step) => [1, 10, 100, 1000, 10_000, 100_000].map((scale) => step * scale)).sort((a, b) => a - b);

const tint = (hex) => {
  const channel = (offset) => Math.round(255 - (255 - Number.parseInt(hex.slice(offset, offset + 2), 16)) * TINT);
  return `rgb(${channel(1)}, ${channel(3)}, ${channel(5)})`;
};

/** One colour per state, by its place in the preset's supported_states, so colours are stable across runs. */
export const stateColors = (states) => new Map(states.map((state, index) => [state, tint(STATE_BASE[index % STATE_BASE.length])]));

/** Consecutive records in one state, as [from, to] interaction ids. */
const stateRuns = (records) => {
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

/** Interaction ids where a new sequence (a new simulated subject) begins, the first one excepted. */
const sequenceStarts = (records) => {
  const starts = [];
  for (let index = 1; index < records.length; index += 1) {
    if (records[index].sequence_id !== records[index - 1].sequence_id) {
      starts.push(records[index].interaction_id);
    }
  }
  return starts;
};

const bandsPlugin = (runs, colors, starts) => ({
  hooks: {
    // drawClear runs after the canvas is cleared and before grid and series: the bands sit behind both.
    drawClear: [
      (u) => {
        const { ctx, bbox } = u;
        ctx.save();
        ctx.beginPath();
        ctx.rect(bbox.left, bbox.top, bbox.width, bbox.height);
        ctx.clip();
        for (const run of runs) {
          const x0 = u.valToPos(run.from - 0.5, 'x', true);
          const x1 = u.valToPos(run.to + 0.5, 'x', true);
          if (x1 < bbox.left || x0 > bbox.left + bbox.width) {
            continue;
          }
          ctx.fillStyle = colors.get(run.state) ?? '#eeeeee';
          ctx.fillRect(x0, bbox.top, Math.max(1, x1 - x0), bbox.height);
        }
        // A new subject's values start afresh: a dashed line says the jump is not a crash. Skipped when
        // sequences are so short that the lines would hide the bands.
        if (starts.length > bbox.width / (24 * devicePixelRatio)) {
          ctx.restore();
          return;
        }
        ctx.strokeStyle = '#4b5563';
        ctx.lineWidth = Math.max(1, devicePixelRatio);
        ctx.setLineDash([4 * devicePixelRatio, 4 * devicePixelRatio]);
        ctx.beginPath();
        for (const start of starts) {
          const x = Math.round(u.valToPos(start - 0.5, 'x', true)) + 0.5;
          ctx.moveTo(x, bbox.top);
          ctx.lineTo(x, bbox.top + bbox.height);
        }
        ctx.stroke();
        ctx.restore();
      },
    ],
  },
});

const sizeFor = (container) => {
  const width = Math.max(280, Math.floor(container.clientWidth));
  return { width, height: Math.round(Math.min(340, Math.max(220, width * 0.45))) };
};

const describe = (records, spec, stateShares, markerCount, starts) => {
  const field = spec.left[0];
  const values = records.map((record) => record[field]).filter((value) => typeof value === 'number');
  const parts = [];
  if (values.length > 0) {
    // A loop, not Math.min(...values): spreading 100,000 arguments overflows the stack.
    let lowest = Infinity;
    let highest = -Infinity;
    for (const value of values) {
      lowest = Math.min(lowest, value);
      highest = Math.max(highest, value);
    }
    parts.push(
      `${fieldLabel(field)} goes from ${formatNumber(values[0])} to ${formatNumber(values.at(-1))} ` +
        `(lowest ${formatNumber(lowest)}, highest ${formatNumber(highest)}) over ${formatInteger(records.length)} interactions.`,
    );
  }
  if (spec.marker !== null) {
    parts.push(`${plural(markerCount, ...spec.marker.nouns)}, marked in red.`);
  }
  if (starts.length > 0) {
    parts.push(`${formatInteger(starts.length + 1)} sequences; dashed lines mark where a new one starts.`);
  }
  const top = [...stateShares].sort((a, b) => b.count - a.count)[0];
  if (top !== undefined && top.count > 0) {
    parts.push(`Most time in ${top.state} (${Math.round((top.count / records.length) * 100)}%).`);
  }
  return parts.join(' ');
};

/**
 * Draws the result into `container`. Returns the caption text, the state legend entries and destroy();
 * the figure carries data-points so a test can tell a drawn chart from an empty one.
 */
export const drawSimulationChart = (container, result, preset) => {
  const records = result.data;
  const spec = chartSpecFor(preset, records);
  const states = preset?.supported_states ?? [...new Set(records.map((record) => record.state))];
  const colors = stateColors(states);
  const counts = new Map(states.map((state) => [state, 0]));
  for (const record of records) {
    counts.set(record.state, (counts.get(record.state) ?? 0) + 1);
  }
  const stateShares = [...counts].map(([state, count]) => ({ state, count, color: colors.get(state) ?? '#eeeeee' }));

  if (spec === null || records.length === 0) {
    container.replaceChildren();
    return { caption: 'Nothing to chart for this result.', stateShares, points: 0, destroy: () => {} };
  }

  const starts = sequenceStarts(records);
  const lines = [...spec.left, ...spec.right];
  const data = [records.map((record) => record.interaction_id)];
  for (const field of lines) {
    data.push(records.map((record) => (typeof record[field] === 'number' ? record[field] : null)));
  }
  let markerCount = 0;
  if (spec.marker !== null) {
    data.push(
      records.map((record) => {
        if (record[spec.marker.field] !== 1) {
          return null;
        }
        markerCount += 1;
        return record[spec.marker.on];
      }),
    );
  }

  const axisStyle = { stroke: '#374151', grid: { stroke: '#e5e7eb', width: 1 }, ticks: { stroke: '#d1d5db', width: 1 } };
  const options = {
    ...sizeFor(container),
    scales: { x: { time: false }, left: { auto: true }, right: { auto: true } },
    series: [
      { label: 'Interaction' },
      ...lines.map((field, index) => ({
        label: fieldLabel(field),
        scale: spec.right.includes(field) ? 'right' : 'left',
        stroke: LINE_COLORS[index % LINE_COLORS.length],
        width: 1.5,
        points: { show: false },
      })),
      ...(spec.marker === null
        ? []
        : [
            {
              label: spec.marker.label,
              scale: 'left',
              stroke: MARKER_COLOR,
              fill: MARKER_COLOR,
              width: 0,
              paths: () => null,
              points: { show: true, size: 6, width: 1, stroke: MARKER_COLOR, fill: MARKER_COLOR },
            },
          ]),
    ],
    axes: [
      // Interactions are whole numbers: no 2.5 on the axis of a short run.
      { ...axisStyle, label: 'Interaction', incrs: INTEGER_STEPS },
      { ...axisStyle, scale: 'left', label: spec.axes[0], size: 64 },
      ...(spec.right.length === 0
        ? []
        : [{ ...axisStyle, scale: 'right', side: 1, label: spec.axes[1], size: 56, grid: { show: false } }]),
    ],
    plugins: [bandsPlugin(stateRuns(records), colors, starts)],
    cursor: { drag: { x: true, y: false } },
  };

  container.replaceChildren();
  const plot = new uPlot(options, data, container);
  let width = options.width;
  // Only a change of width resizes: the plot's own height change must not feed back into the observer.
  const observer = new ResizeObserver(() => {
    const size = sizeFor(container);
    if (size.width !== width) {
      width = size.width;
      plot.setSize(size);
    }
  });
  observer.observe(container);

  return {
    caption: describe(records, spec, stateShares, markerCount, starts),
    stateShares,
    points: records.length,
    destroy: () => {
      observer.disconnect();
      plot.destroy();
    },
  };
};
