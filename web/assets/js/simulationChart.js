import uPlot from '../vendor/uPlot.esm.js';
import { bandsPlugin, latestLegendPlugin, sequenceGaps, sequenceStarts, stateRuns } from './chartPlugins.js';
import { chartSpecFor, fieldLabel } from './chartSpec.js';
import { el } from './dom.js';
import { formatInteger, formatNumber, plural } from './format.js';
import { EVENT_STRIP, eventColors, eventOf, eventWindows, scenarioBandsPlugin } from './scenarioBands.js';

// Line colours hold at least 4.5:1 against white; the marker red is reserved for alerts.
export const LINE_COLORS = ['#1f5fbf', '#b45309', '#047857', '#7c3aed'];
const MARKER_COLOR = '#c0122c';
// The counterfactual is the baseline the scenario is read against: one grey (4.8:1 on white), dashed.
export const COUNTERFACTUAL_COLOR = '#6b7280';
// Okabe–Ito (colour-blind safe), blended over white to light tints so lines stay readable on top.
// Ordered so that neighbouring states (in catalog order) get the most different tints.
const STATE_BASE = ['#56B4E9', '#E69F00', '#009E73', '#CC79A7', '#999999', '#F0E442', '#D55E00', '#0072B2'];
const TINT = 0.32;
const INTEGER_STEPS = [1, 2, 5].flatMap((step) => [1, 10, 100, 1000, 10_000, 100_000].map((scale) => step * scale)).sort((a, b) => a - b);
const AXIS_STYLE = { stroke: '#374151', grid: { stroke: '#e5e7eb', width: 1 }, ticks: { stroke: '#d1d5db', width: 1 } };

const tint = (hex) => {
  const channel = (offset) => Math.round(255 - (255 - Number.parseInt(hex.slice(offset, offset + 2), 16)) * TINT);
  return `rgb(${channel(1)}, ${channel(3)}, ${channel(5)})`;
};

/** One colour per state, by its place in the preset's supported_states, so colours are stable across runs. */
export const stateColors = (states) => new Map(states.map((state, index) => [state, tint(STATE_BASE[index % STATE_BASE.length])]));

/** One panel alone gets the old single chart's height; stacked panels share the height of about two. */
const sizeFor = (container, panels) => {
  const width = Math.max(280, Math.floor(container.clientWidth));
  const height = panels === 1 ? Math.min(340, Math.max(220, width * 0.45)) : Math.min(190, Math.max(130, width * 0.2));
  return { width, height: Math.round(height) };
};

/** The scenario in words: where each type's windows are, and what the counterfactual shows inside them. */
const describeScenario = (records, spec, windows, counterfactual) => {
  const parts = [];
  const types = [...new Set(windows.map((window) => window.type))];
  for (const type of types) {
    const own = windows.filter((window) => window.type === type);
    const first = own[0];
    parts.push(
      own.length === 1
        ? `Scenario event ${type} on sequence ${first.sequence}, interactions ${formatInteger(first.from)}–${formatInteger(first.to)} (hatched).`
        : `Scenario event ${type} in ${formatInteger(own.length)} windows, ${plural(own.reduce((sum, window) => sum + window.to - window.from + 1, 0), 'record')} in all (hatched).`,
    );
  }
  if (counterfactual !== null) {
    parts.push('Dashed grey: the counterfactual, the same run without the scenario, at each record of the same sequence and step.');
    const field = spec.panels[0].fields[0];
    let withSum = 0;
    let withoutSum = 0;
    let count = 0;
    records.forEach((record, index) => {
      const other = counterfactual[index];
      if (eventOf(record) !== null && other !== null && typeof record[field] === 'number' && typeof other[field] === 'number') {
        withSum += record[field];
        withoutSum += other[field];
        count += 1;
      }
    });
    if (count > 0) {
      parts.push(
        `Inside the event windows, ${fieldLabel(field)} averages ${formatNumber(withSum / count)} with the scenario and ${formatNumber(withoutSum / count)} without.`,
      );
    }
  }
  return parts;
};

const describe = (records, spec, stateShares, markerCount, starts) => {
  const field = spec.panels[0].fields[0];
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
  if (spec.panels.length > 1) {
    parts.push(`${spec.panels.length} panels on one interaction axis, each with its own scale: ${spec.panels.map((panel) => panel.title).join('; ')}.`);
  }
  if (spec.marker !== null) {
    parts.push(`${plural(markerCount, ...spec.marker.nouns)}, marked in red.`);
  }
  if (starts.length > 0) {
    parts.push(`${formatInteger(starts.length + 1)} sequences; lines break where a new one starts.`);
  }
  const top = [...stateShares].sort((a, b) => b.count - a.count)[0];
  if (top !== undefined && top.count > 0) {
    parts.push(`Most time in ${top.state} (${Math.round((top.count / records.length) * 100)}%).`);
  }
  return parts.join(' ');
};

let charts = 0;

// uPlot's own legend markers, but dashed for a dashed series (the counterfactual).
const LEGEND_MARKERS = {
  show: true,
  width: 2,
  stroke: (u, index) => {
    const series = u.series[index];
    return series.width ? series.stroke(u, index) : series.points.width ? series.points.stroke(u, index) : null;
  },
  fill: (u, index) => u.series[index].fill(u, index),
  dash: (u, index) => (u.series[index].dash === undefined ? 'solid' : 'dashed'),
};

const percent = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 2 });
/** Legend values and axis labels of a panel, in the way its quantity is read. */
const formatterFor = (format) => (format === 'percent' ? (value) => percent.format(value) : (value) => formatNumber(value));

/** The x range around the first event window (twice its length either side, at least 20 records), or null for the whole run. */
const firstWindowZoom = (windows, xs) => {
  const first = windows[0];
  if (first === undefined || xs.length === 0) {
    return null;
  }
  const lowest = xs[0];
  const highest = xs.at(-1);
  const length = first.to - first.from + 1;
  const margin = Math.max(2 * length, Math.ceil((20 - length) / 2), 2);
  const min = Math.max(lowest, first.from - margin);
  const max = Math.min(highest, first.to + margin);
  // A window that is most of the run is seen whole anyway.
  return max - min >= (highest - lowest) * 0.8 ? null : { min, max };
};

/**
 * Draws the result into `container` as one panel per quantity, with a scenario's event windows and, when
 * given (aligned to the records by alignCounterfactual), the counterfactual's lines. Returns the caption
 * text, the state and event legend entries, the number of panels and points and destroy(); the figure
 * carries data-points (and data-counterfactual) so a test can tell a drawn chart from an empty one.
 */
export const drawSimulationChart = (container, result, preset, { counterfactual = null } = {}) => {
  const records = result.data;
  const spec = chartSpecFor(preset, records);
  const states = preset?.supported_states ?? [...new Set(records.map((record) => record.state))];
  const colors = stateColors(states);
  const counts = new Map(states.map((state) => [state, 0]));
  for (const record of records) {
    counts.set(record.state, (counts.get(record.state) ?? 0) + 1);
  }
  const stateShares = [...counts].map(([state, count]) => ({ state, count, color: colors.get(state) ?? '#eeeeee' }));
  const windows = eventWindows(records);
  const catalogTypes = (preset?.scenario_events ?? []).map((event) => event.type);
  const typeColors = eventColors([...new Set([...catalogTypes, ...windows.map((window) => window.type)])]);
  const events = [...new Set(windows.map((window) => window.type))].map((type) => ({ type, color: typeColors.get(type) }));

  container.replaceChildren();
  if (spec === null || records.length === 0) {
    return { caption: 'Nothing to chart for this result.', stateShares, events, points: 0, counterfactualPoints: 0, panels: 0, destroy: () => {} };
  }

  const starts = sequenceStarts(records);
  const startIds = starts.map((index) => records[index].interaction_id);
  const runs = stateRuns(records);
  const xs = records.map((record) => record.interaction_id);
  // Engine 4's records say when they happened: the shared axis is then labelled with the event time of
  // the record at each tick (UTC, to the minute), the x values staying the interactions the bands use.
  const timed = typeof records[0].event_time === 'string';
  const timeAt = (value) => records[Math.round(value) - xs[0]]?.event_time?.slice(0, 16).replace('T', ' ') ?? '';
  // The panels move one cursor and zoom together, and no other chart on the page.
  charts += 1;
  const syncKey = `simulation-${charts}`;
  const interaction = {
    label: 'Interaction',
    value: (u, value, seriesIndex, index) =>
      index === null || records[index] === undefined
        ? '--'
        : `${formatInteger(value)} · sequence ${records[index].sequence_id} · ${records[index].state}${timed ? ` · ${records[index].event_time}` : ''}`,
  };
  let markerCount = 0;
  const plots = [];
  let zooming = false;

  spec.panels.forEach((panel, panelIndex) => {
    const last = panelIndex === spec.panels.length - 1;
    const marker = panelIndex === 0 ? spec.marker : null;
    const valuesOf = (rows, field) => rows.map((record) => (record !== null && typeof record[field] === 'number' ? record[field] : null));
    // Counterfactual lines come first so they are drawn behind the run's own; the legend is reordered below.
    const shadows = counterfactual === null ? [] : panel.fields;
    const data = [xs, ...shadows.map((field) => valuesOf(counterfactual, field)), ...panel.fields.map((field) => valuesOf(records, field))];
    if (marker !== null) {
      data.push(
        records.map((record) => {
          if (record[marker.field] !== 1) {
            return null;
          }
          markerCount += 1;
          return record[marker.on];
        }),
      );
    }
    const format = formatterFor(panel.format);
    const holder = el('div', { className: panelIndex === 0 ? 'chart-panel' : 'chart-panel chart-panel-rest', attrs: { 'data-panel': panel.title } });
    container.append(holder);
    const options = {
      ...sizeFor(container, spec.panels.length),
      title: panel.title,
      scales: { x: { time: false } },
      padding: windows.length > 0 && panelIndex === 0 ? [EVENT_STRIP + 8, null, null, null] : undefined,
      series: [
        interaction,
        ...shadows.map((field) => ({
          // The panel's title names a lone quantity: short labels keep the legend on one line on a phone.
          label: panel.fields.length === 1 ? 'Counterfactual' : `${fieldLabel(field)}, counterfactual`,
          class: 'series-counterfactual',
          stroke: COUNTERFACTUAL_COLOR,
          width: 1.5,
          dash: [6 * devicePixelRatio, 4 * devicePixelRatio],
          points: { show: false },
          gaps: sequenceGaps(starts),
          // An event that ends a subject early (or late) leaves places the other run does not have.
          value: (u, value) => (value === null || value === undefined ? 'none here' : format(value)),
        })),
        ...panel.fields.map((field, index) => ({
          label: counterfactual === null ? fieldLabel(field) : panel.fields.length === 1 ? 'With scenario' : `${fieldLabel(field)}, with scenario`,
          stroke: LINE_COLORS[index % LINE_COLORS.length],
          width: 1.5,
          points: { show: false },
          gaps: sequenceGaps(starts),
          value: (u, value) => (value === null || value === undefined ? '--' : format(value)),
        })),
        ...(marker === null
          ? []
          : [
              {
                label: marker.label,
                stroke: MARKER_COLOR,
                fill: MARKER_COLOR,
                width: 0,
                paths: () => null,
                points: { show: true, size: 6, width: 1, stroke: MARKER_COLOR, fill: MARKER_COLOR },
                value: (u, value) => (value === null || value === undefined ? 'no' : 'yes'),
              },
            ]),
      ],
      axes: [
        // Interactions are whole numbers: no 2.5 on the axis of a short run. Only the lowest panel
        // labels the shared axis; the others keep its grid.
        last && timed
          ? { ...AXIS_STYLE, label: 'Event time (UTC)', incrs: INTEGER_STEPS, values: (u, splits) => splits.map(timeAt) }
          : last
          ? { ...AXIS_STYLE, label: 'Interaction', incrs: INTEGER_STEPS }
          : { ...AXIS_STYLE, incrs: INTEGER_STEPS, size: 10, values: (u, splits) => splits.map(() => '') },
        { ...AXIS_STYLE, size: 64, values: (u, splits) => splits.map(format) },
      ],
      plugins: [bandsPlugin(runs, colors, startIds), scenarioBandsPlugin(windows, typeColors, { labelled: panelIndex === 0 }), latestLegendPlugin()],
      legend: { markers: { ...LEGEND_MARKERS } },
      // No horizontal hairline: at one height in every panel it would mean nothing in the others.
      cursor: { y: false, drag: { x: true, y: false }, sync: { key: syncKey } },
      hooks: {
        // A zoom in one panel zooms them all.
        setScale: [
          (u, key) => {
            if (key !== 'x' || zooming) {
              return;
            }
            zooming = true;
            for (const other of plots) {
              if (other !== u) {
                other.setScale('x', { min: u.scales.x.min, max: u.scales.x.max });
              }
            }
            zooming = false;
          },
        ],
      },
    };
    const plot = new uPlot(options, data, holder);
    // Each counterfactual's legend entry right after its field's own: uPlot keeps references to the
    // cells, not their place, so moving the rows is safe.
    const rows = plot.root.querySelectorAll('.u-legend .u-series');
    shadows.forEach((field, index) => rows[1 + shadows.length + index]?.after(rows[1 + index]));
    plots.push(plot);
  });

  // A run with a scenario opens on its first event window, a few of its widths either side: a window of 6
  // records in a run of 400 is a sliver at full range, and the counterfactual's dashed line inside it could
  // not be seen without dragging. Double-click shows the whole run, as on any chart.
  const zoom = firstWindowZoom(windows, xs);
  if (zoom !== null) {
    plots[0].setScale('x', zoom);
  }

  let width = sizeFor(container, spec.panels.length).width;
  // Only a change of width resizes: the plots' own height change must not feed back into the observer.
  const observer = new ResizeObserver(() => {
    const size = sizeFor(container, spec.panels.length);
    if (size.width !== width) {
      width = size.width;
      for (const plot of plots) {
        plot.setSize(size);
      }
    }
  });
  observer.observe(container);

  const zoomed =
    zoom === null ? [] : [`The chart opens on the first event window, interactions ${formatInteger(zoom.min)}–${formatInteger(zoom.max)}; double-click it to see the whole run.`];
  return {
    caption: [describe(records, spec, stateShares, markerCount, starts), ...describeScenario(records, spec, windows, counterfactual), ...zoomed].join(' '),
    zoom,
    stateShares,
    events,
    points: records.length,
    // Records with a counterfactual at their place: 0 when none is drawn.
    counterfactualPoints: counterfactual === null ? 0 : counterfactual.filter((record) => record !== null).length,
    panels: plots.length,
    destroy: () => {
      observer.disconnect();
      for (const plot of plots) {
        plot.destroy();
      }
    },
  };
};
