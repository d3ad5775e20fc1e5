import uPlot from '../vendor/uPlot.esm.js';
import { formatNumber, formatUtcInstant } from './format.js';
import { UTC_TIME_OPTIONS, utcTimeAxis, utcTimeScale } from './timeAxis.js';

// A live stream's moving chart (docs/console.md "Streams"): the latest envelopes as points at their event
// time (UTC) and the value of one field, redrawn as they arrive. A late event lands behind the stream's
// clock (the dashed line: the latest delivery time), which is what disorder looks like to a consumer.

/** Envelopes kept on the chart: the latest by arrival; older ones scroll out. */
export const CHART_WINDOW = 400;
const AXIS_STYLE = { stroke: '#374151', grid: { stroke: '#e5e7eb', width: 1 }, ticks: { stroke: '#d1d5db', width: 1 } };
// On time: small filled dots; late: larger rings; duplicates: larger rings again, dashed in their own colour.
// Shape and size tell them apart as well as colour (the table says the same in words).
export const MARKS = {
  onTime: { label: 'On time', color: '#1f5fbf', size: 5, fill: '#1f5fbf' },
  late: { label: 'Late', color: '#b45309', size: 10, fill: '#ffffff' },
  duplicate: { label: 'Duplicate', color: '#7c3aed', size: 15, fill: 'rgba(0,0,0,0)' },
};

const kindOf = (envelope) => (envelope.duplicate ? 'duplicate' : envelope.delay_ms > 0 ? 'late' : 'onTime');

/** The clock's dashed line over the plot. */
const clockPlugin = (clock) => ({
  hooks: {
    draw: [
      (u) => {
        const at = clock();
        if (at === null) {
          return;
        }
        const x = Math.round(u.valToPos(at, 'x', true)) + 0.5;
        const { ctx, bbox } = u;
        if (x < bbox.left || x > bbox.left + bbox.width + 1) {
          return;
        }
        ctx.save();
        ctx.strokeStyle = '#111827';
        ctx.lineWidth = Math.max(1, devicePixelRatio);
        ctx.setLineDash([5 * devicePixelRatio, 4 * devicePixelRatio]);
        ctx.beginPath();
        ctx.moveTo(x, bbox.top);
        ctx.lineTo(x, bbox.top + bbox.height);
        ctx.stroke();
        ctx.restore();
      },
    ],
  },
});

/**
 * Draws into `container` a chart of `field` (its label `label`). add(envelope) takes each envelope as it
 * arrives; redraw() draws what was added (call it at most once a frame). The container carries
 * data-points, data-late, data-duplicates and data-x-range for tests and tools.
 */
export const drawStreamChart = (container, { field, label }) => {
  // Points in event-time order, and the same points in the order they arrived (to drop the oldest).
  const points = [];
  const arrived = [];
  let clockAt = null;
  let pending = false;

  const width = () => Math.max(280, Math.floor(container.clientWidth));
  const height = () => Math.round(Math.min(300, Math.max(200, width() * 0.4)));
  const pointSeries = (mark) => ({
    label: mark.label,
    stroke: mark.color,
    fill: mark.fill,
    width: 0,
    paths: () => null,
    points: { show: true, size: mark.size, width: 1.5 * devicePixelRatio, stroke: mark.color, fill: mark.fill },
    value: (u, value) => (value === null || value === undefined ? '--' : formatNumber(value)),
  });
  container.replaceChildren();
  const plot = new uPlot(
    {
      width: width(),
      height: height(),
      ...UTC_TIME_OPTIONS,
      title: label,
      scales: { x: utcTimeScale },
      series: [
        { label: 'Event time', value: (u, value) => (value === null || value === undefined ? '--' : formatUtcInstant(value)) },
        pointSeries(MARKS.onTime),
        pointSeries(MARKS.late),
        pointSeries(MARKS.duplicate),
      ],
      axes: [utcTimeAxis(AXIS_STYLE, (labels) => {
        container.dataset.xTicks = JSON.stringify(labels);
      }), { ...AXIS_STYLE, size: 64, values: (u, splits) => splits.map((value) => formatNumber(value)) }],
      plugins: [clockPlugin(() => clockAt)],
      // The figure's own legend names the marks, and the table gives every value in words.
      legend: { show: false },
      cursor: { y: false, drag: { x: false, y: false } },
      hooks: {
        // uPlot applies a new scale after the call that sets it: its extent is read once applied.
        setScale: [
          (u, key) => {
            if (key === 'x') {
              container.dataset.xRange = `${new Date(u.scales.x.min).toISOString()}/${new Date(u.scales.x.max).toISOString()}`;
            }
          },
        ],
      },
    },
    [[], [], [], []],
    container,
  );

  /** The first place whose x is above `x` (strictly, with `after`), by binary search. */
  const placeOf = (x, after) => {
    let low = 0;
    let high = points.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (after ? points[middle].x <= x : points[middle].x < x) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    return low;
  };

  const add = (envelope) => {
    const x = Date.parse(envelope.record.event_time);
    const value = envelope.record[field];
    // The clock: the latest delivery time, an event's time plus its delay.
    clockAt = Math.max(clockAt ?? -Infinity, x + envelope.delay_ms);
    const point = { x, y: typeof value === 'number' ? value : null, kind: kindOf(envelope) };
    // A late point goes back among earlier event times.
    points.splice(placeOf(x, true), 0, point);
    arrived.push(point);
    if (arrived.length > CHART_WINDOW) {
      // The oldest arrival leaves: found among the points of its instant, a search and not a scan of all.
      const gone = arrived.shift();
      for (let index = placeOf(gone.x, false); index < points.length; index += 1) {
        if (points[index] === gone) {
          points.splice(index, 1);
          break;
        }
      }
    }
    pending = true;
  };

  const redraw = () => {
    if (!pending) {
      return;
    }
    pending = false;
    const xs = points.map((point) => point.x);
    const column = (kind) => points.map((point) => (point.kind === kind ? point.y : null));
    plot.setData([xs, column('onTime'), column('late'), column('duplicate')]);
    // The x range reaches the clock, so a late event is seen behind it.
    const min = xs[0] ?? 0;
    const max = Math.max(xs.at(-1) ?? 0, clockAt ?? 0);
    plot.setScale('x', min === max ? { min: min - 1000, max: max + 1000 } : { min, max });
    container.dataset.points = String(points.length);
    container.dataset.late = String(points.filter((point) => point.kind === 'late').length);
    container.dataset.duplicates = String(points.filter((point) => point.kind === 'duplicate').length);
  };

  let lastWidth = width();
  const observer = new ResizeObserver(() => {
    if (width() !== lastWidth) {
      lastWidth = width();
      plot.setSize({ width: lastWidth, height: height() });
    }
  });
  observer.observe(container);

  return {
    add,
    redraw,
    shown: () => points.length,
    destroy: () => {
      observer.disconnect();
      plot.destroy();
    },
  };
};
