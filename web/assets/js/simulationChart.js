import uPlot from '../vendor/uPlot.esm.js';
import { interactionLayout, timeLayout } from './chartLayout.js';
import { bandsPlugin, boldLinesOf, latestLegendPlugin, sequencePaths } from './chartPlugins.js';
import { chartSpecFor, fieldLabel } from './chartSpec.js';
import { el } from './dom.js';
import { formatInteger, formatNumber, formatUtcInstant, plural } from './format.js';
import { EVENT_STRIP, eventColors, eventOf, scenarioBandsPlugin } from './scenarioBands.js';
import { UTC_TIME_OPTIONS, utcTimeAxis, utcTimeScale } from './timeAxis.js';

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
const describeScenario = (records, spec, windows, counterfactual, timed) => {
  const parts = [];
  const types = [...new Set(windows.map((window) => window.type))];
  // On a time axis a window is named by its subject's steps and its instants: in order "time" its records'
  // interaction ids are not consecutive.
  const where = (window) =>
    timed
      ? `steps ${formatInteger(window.fromStep)}–${formatInteger(window.toStep)}, ${formatUtcInstant(Date.parse(records[window.fromIndex].event_time))} to ${formatUtcInstant(Date.parse(records[window.toIndex].event_time))}`
      : `interactions ${formatInteger(window.from)}–${formatInteger(window.to)}`;
  for (const type of types) {
    const own = windows.filter((window) => window.type === type);
    const first = own[0];
    parts.push(
      own.length === 1
        ? `Scenario event ${type} on sequence ${first.sequence}, ${where(first)} (hatched).`
        : `Scenario event ${type} in ${formatInteger(own.length)} windows, ${plural(own.reduce((sum, window) => sum + window.toStep - window.fromStep + 1, 0), 'record')} in all (hatched).`,
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

const describe = (records, spec, stateShares, markerCount, layout) => {
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
  const axis = layout.axis === 'time' ? 'event-time axis (UTC)' : 'interaction axis';
  if (spec.panels.length > 1) {
    parts.push(`${spec.panels.length} panels on one ${axis}, each with its own scale: ${spec.panels.map((panel) => panel.title).join('; ')}.`);
  } else if (layout.axis === 'time') {
    parts.push('On an event-time axis (UTC).');
  }
  if (spec.marker !== null) {
    parts.push(`${plural(markerCount, ...spec.marker.nouns)}, marked in red.`);
  }
  if (layout.sequenceCount > 1) {
    parts.push(
      layout.axis === 'interaction'
        ? `${formatInteger(layout.sequenceCount)} sequences; lines break where a new one starts.`
        : layout.overlap
          ? `${formatInteger(layout.sequenceCount)} sequences, each its own line; they overlap in time, so the states shaded behind the lines are one subject's, drawn bolder: the one under the pointer, at first that of the latest record.`
          : `${formatInteger(layout.sequenceCount)} sequences, each its own line, one after another in time.`,
    );
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

/**
 * Draws the result into `container` as one panel per quantity, with a scenario's event windows and, when
 * given (aligned to the records by alignCounterfactual), the counterfactual's lines. Engine 4's records
 * (with event_time) go on a UTC time axis, each sequence its own line (chartLayout.js says why); older
 * engines' on the interaction axis. Returns the caption text, the state and event legend entries, the
 * axis, the zoom, the number of panels and points and destroy(); the container carries data-axis,
 * data-x-range (the x scale's extent), data-x-ticks (the labels drawn) and, where subjects overlap,
 * data-bands-of (whose states are shaded), which a canvas cannot show to a test.
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
  const timed = typeof records[0]?.event_time === 'string';
  const layout = timed ? timeLayout(records, counterfactual) : interactionLayout(records, counterfactual);
  const { windows } = layout;
  const catalogTypes = (preset?.scenario_events ?? []).map((event) => event.type);
  const typeColors = eventColors([...new Set([...catalogTypes, ...windows.map((window) => window.type)])]);
  const events = [...new Set(windows.map((window) => window.type))].map((type) => ({ type, color: typeColors.get(type) }));

  container.replaceChildren();
  container.dataset.axis = layout.axis;
  delete container.dataset.xRange;
  delete container.dataset.xTicks;
  if (spec === null || records.length === 0) {
    return { caption: 'Nothing to chart for this result.', stateShares, events, axis: layout.axis, zoom: null, points: 0, counterfactualPoints: 0, panels: 0, destroy: () => {} };
  }

  const { xs, rows, shadows: shadowRows } = layout;
  const xText = (value) => (timed ? new Date(value).toISOString() : String(value));
  // The panels move one cursor and zoom together, and no other chart on the page.
  charts += 1;
  const syncKey = `simulation-${charts}`;
  const xSeries = {
    label: timed ? 'Event time' : 'Interaction',
    value: (u, value, seriesIndex, index) => {
      const record = index === null ? undefined : (rows[index] ?? shadowRows[index] ?? undefined);
      if (record === undefined) {
        return '--';
      }
      const where = `sequence ${record.sequence_id} · ${record.state}${rows[index] === null ? ' (counterfactual)' : ''}`;
      return timed ? `${formatUtcInstant(value)} · ${where}` : `${formatInteger(value)} · ${where}`;
    },
  };
  // Engine 4: each subject its own line; before it, lines broken where a sequence ends.
  const lineOf = timed ? { paths: sequencePaths(layout.sequences) } : { gaps: layout.gaps };
  let markerCount = 0;
  const plots = [];
  let zooming = false;
  // Subjects that overlap in time: the bands behind the lines, and a bolder line, are those of the subject
  // the legend shows (the pointer's, else the latest record's), so a state is always read off one subject.
  const focus = { sequence: layout.overlap ? (rows.at(-1) ?? shadowRows.at(-1))?.sequence_id : undefined, frame: 0 };
  const runsOf = layout.overlap ? () => layout.runsBySequence.get(focus.sequence) ?? [] : () => layout.runs;
  const follow = (u) => {
    const index = u.legend.idx ?? xs.length - 1;
    const sequence = (rows[index] ?? shadowRows[index])?.sequence_id;
    if (!layout.overlap || sequence === undefined || sequence === focus.sequence) {
      return;
    }
    focus.sequence = sequence;
    container.dataset.bandsOf = String(sequence);
    // Once a frame, whatever the pointer does in between.
    focus.frame ||= requestAnimationFrame(() => {
      focus.frame = 0;
      for (const plot of plots) {
        plot.redraw(false, false);
      }
    });
  };
  if (layout.overlap) {
    container.dataset.bandsOf = String(focus.sequence);
  }
  spec.panels.forEach((panel, panelIndex) => {
    const last = panelIndex === spec.panels.length - 1;
    const marker = panelIndex === 0 ? spec.marker : null;
    const valuesOf = (list, field) => list.map((record) => (record !== null && typeof record[field] === 'number' ? record[field] : null));
    // Counterfactual lines come first so they are drawn behind the run's own; the legend is reordered below.
    const shadows = counterfactual === null ? [] : panel.fields;
    const data = [xs, ...shadows.map((field) => valuesOf(shadowRows, field)), ...panel.fields.map((field) => valuesOf(rows, field))];
    if (marker !== null) {
      data.push(
        rows.map((record) => {
          if (record === null || record[marker.field] !== 1) {
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
    // Only the lowest panel labels the shared axis; the others keep its grid. Interactions are whole
    // numbers: no 2.5 on the axis of a short run.
    const xAxis = timed
      ? last
        ? utcTimeAxis(AXIS_STYLE, (labels) => {
            container.dataset.xTicks = JSON.stringify(labels);
          })
        : { ...utcTimeAxis(AXIS_STYLE), label: undefined, size: 10, values: (u, splits) => splits.map(() => '') }
      : last
        ? { ...AXIS_STYLE, label: 'Interaction', incrs: INTEGER_STEPS }
        : { ...AXIS_STYLE, incrs: INTEGER_STEPS, size: 10, values: (u, splits) => splits.map(() => '') };
    const options = {
      ...sizeFor(container, spec.panels.length),
      ...(timed ? UTC_TIME_OPTIONS : {}),
      title: panel.title,
      scales: { x: timed ? utcTimeScale : { time: false } },
      padding: windows.length > 0 && panelIndex === 0 ? [EVENT_STRIP + 8, null, null, null] : undefined,
      series: [
        xSeries,
        ...shadows.map((field) => ({
          // The panel's title names a lone quantity: short labels keep the legend on one line on a phone.
          label: panel.fields.length === 1 ? 'Counterfactual' : `${fieldLabel(field)}, counterfactual`,
          class: 'series-counterfactual',
          stroke: COUNTERFACTUAL_COLOR,
          width: 1.5,
          dash: [6 * devicePixelRatio, 4 * devicePixelRatio],
          points: { show: false },
          ...lineOf,
          // An event that ends a subject early (or late) leaves places the other run does not have.
          value: (u, value) => (value === null || value === undefined ? 'none here' : format(value)),
        })),
        ...panel.fields.map((field, index) => ({
          label: counterfactual === null ? fieldLabel(field) : panel.fields.length === 1 ? 'With scenario' : `${fieldLabel(field)}, with scenario`,
          stroke: LINE_COLORS[index % LINE_COLORS.length],
          width: 1.5,
          points: { show: false },
          ...lineOf,
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
      axes: [xAxis, { ...AXIS_STYLE, size: 64, values: (u, splits) => splits.map(format) }],
      plugins: [bandsPlugin(runsOf, colors, layout.startXs), scenarioBandsPlugin(windows, typeColors, { labelled: panelIndex === 0 }), latestLegendPlugin()],
      legend: { markers: { ...LEGEND_MARKERS } },
      // No horizontal hairline: at one height in every panel it would mean nothing in the others.
      cursor: { y: false, drag: { x: true, y: false }, sync: { key: syncKey } },
      hooks: {
        setLegend: [follow],
        draw: layout.overlap
          ? [boldLinesOf(() => focus.sequence, layout.sequences, panel.fields.map((field, index) => ({ index: 1 + shadows.length + index, color: LINE_COLORS[index % LINE_COLORS.length] })))]
          : [],
        setScale: [
          (u, key) => {
            if (key !== 'x') {
              return;
            }
            if (panelIndex === 0) {
              container.dataset.xRange = `${xText(u.scales.x.min)}/${xText(u.scales.x.max)}`;
            }
            // A zoom in one panel zooms them all.
            if (zooming) {
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
    const legendRows = plot.root.querySelectorAll('.u-legend .u-series');
    shadows.forEach((field, index) => legendRows[1 + shadows.length + index]?.after(legendRows[1 + index]));
    plots.push(plot);
  });

  // A run with a scenario opens on its first event window, a few of its widths either side: a window of 6
  // records in a run of 400 is a sliver at full range, and the counterfactual's dashed line inside it could
  // not be seen without dragging. Double-click shows the whole run, as on any chart.
  const { zoom } = layout;
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
    zoom === null
      ? []
      : [
          timed
            ? `The chart opens on the first event window, ${formatUtcInstant(zoom.min)} to ${formatUtcInstant(zoom.max)}; double-click it to see the whole run.`
            : `The chart opens on the first event window, interactions ${formatInteger(zoom.min)}–${formatInteger(zoom.max)}; double-click it to see the whole run.`,
        ];
  return {
    caption: [describe(records, spec, stateShares, markerCount, layout), ...describeScenario(records, spec, windows, counterfactual, timed), ...zoomed].join(' '),
    zoom,
    axis: layout.axis,
    stateShares,
    events,
    points: records.length,
    // Records with a counterfactual at their place: 0 when none is drawn.
    counterfactualPoints: counterfactual === null ? 0 : counterfactual.filter((record) => record !== null).length,
    panels: plots.length,
    destroy: () => {
      observer.disconnect();
      cancelAnimationFrame(focus.frame);
      for (const plot of plots) {
        plot.destroy();
      }
    },
  };
};
