import uPlot from '../vendor/uPlot.esm.js';
import { axisSizeFor, latestLegendPlugin } from './chartPlugins.js';
import { el } from './dom.js';
import { formatInteger, plural } from './format.js';

// How runs ended, in the order they stack from the axis up; Okabe–Ito colours (colour-blind safe), and
// the table below the chart says the same in words.
export const OUTCOMES = [
  { status: 'completed', label: 'Completed', color: '#0072B2' },
  { status: 'cancelled', label: 'Cancelled', color: '#E69F00' },
  { status: 'failed', label: 'Failed', color: '#D55E00' },
  { status: 'timed_out', label: 'Timed out', color: '#CC79A7' },
  { status: 'queued', label: 'Running', color: '#999999' },
];
const INTERACTIONS_COLOR = '#009E73';
const AXIS_STYLE = { stroke: '#374151', grid: { stroke: '#e5e7eb', width: 1 }, ticks: { stroke: '#d1d5db', width: 1 } };
const dayFormat = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', timeZone: 'UTC' });
const monthFormat = new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric', timeZone: 'UTC' });

export const formatDay = (date) => dayFormat.format(new Date(`${date}T00:00:00Z`));

const sizeFor = (container) => {
  const width = Math.max(280, Math.floor(container.clientWidth));
  return { width, height: Math.round(Math.min(200, Math.max(140, width * 0.2))) };
};

let charts = 0;

/**
 * Runs per day stacked by how they ended, and the interactions counted per day, as two panels on one day
 * axis. Bars are drawn tallest first (each series is the running total of the outcomes below it, so the
 * next one paints over its lower part); the legend reads each outcome's own count. Returns the caption
 * and destroy().
 */
export const drawUsageChart = (container, usage) => {
  const days = usage.days;
  container.replaceChildren();
  if (days.length === 0) {
    return { caption: 'No days to show.', destroy: () => {} };
  }
  const xs = days.map((day) => Number(day.date.slice(8, 10)));
  const counts = OUTCOMES.map((outcome) => days.map((day) => day.by_status[outcome.status]?.runs ?? 0));
  const stacked = counts.map((_, index) => days.map((__, day) => counts.slice(0, index + 1).reduce((sum, series) => sum + series[day], 0)));
  const shown = OUTCOMES.map((outcome, index) => ({ ...outcome, index })).filter(
    (outcome) => outcome.status !== 'queued' || counts[outcome.index].some((value) => value > 0),
  );
  charts += 1;
  const syncKey = `usage-${charts}`;
  const month = monthFormat.format(new Date(usage.period.start));
  const dayLabel = {
    label: 'Day',
    value: (u, value, seriesIndex, index) => (index === null || days[index] === undefined ? '--' : formatDay(days[index].date)),
  };
  const bars = uPlot.paths.bars({ size: [0.7, 48], align: 0 });
  // The widest value label of either panel (the top of its range), so both plot areas start at one x.
  const yAxisSize = axisSizeFor([formatInteger(Math.max(1, ...stacked.at(-1))), formatInteger(Math.max(1, ...days.map((day) => day.interactions)))]);
  const common = (last) => ({
    ...sizeFor(container),
    scales: { x: { time: false, range: (u, min, max) => [min - 0.5, max + 0.5] }, y: { range: (u, min, max) => [0, Math.max(1, max)] } },
    axes: [
      last ? { ...AXIS_STYLE, label: `${month} (UTC)`, incrs: [1, 2, 5, 7] } : { ...AXIS_STYLE, incrs: [1, 2, 5, 7], size: 10, values: (u, splits) => splits.map(() => '') },
      { ...AXIS_STYLE, size: yAxisSize, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000, 1_000_000, 10_000_000] },
    ],
    cursor: { y: false, sync: { key: syncKey }, drag: { x: false, y: false } },
    plugins: [latestLegendPlugin()],
  });

  const runsPanel = el('div', { className: 'chart-panel', attrs: { 'data-panel': 'runs' } });
  const interactionsPanel = el('div', { className: 'chart-panel chart-panel-rest', attrs: { 'data-panel': 'interactions' } });
  container.append(runsPanel, interactionsPanel);
  const plots = [
    new uPlot(
      {
        ...common(false),
        title: 'Runs per day, by how they ended',
        series: [
          dayLabel,
          // Tallest first, so each outcome's bar shows above the ones stacked under it.
          ...[...shown].reverse().map((outcome) => ({
            label: outcome.label,
            fill: outcome.color,
            stroke: outcome.color,
            width: 0,
            paths: bars,
            points: { show: false },
            value: (u, value, seriesIndex, index) => (index === null ? '--' : formatInteger(counts[outcome.index][index])),
          })),
        ],
      },
      [xs, ...[...shown].reverse().map((outcome) => stacked[outcome.index])],
      runsPanel,
    ),
    new uPlot(
      {
        ...common(true),
        title: 'Interactions counted per day',
        series: [
          dayLabel,
          { label: 'Interactions', fill: INTERACTIONS_COLOR, stroke: INTERACTIONS_COLOR, width: 0, paths: bars, points: { show: false }, value: (u, value) => (value === null ? '--' : formatInteger(value)) },
        ],
      },
      [xs, days.map((day) => day.interactions)],
      interactionsPanel,
    ),
  ];

  let width = sizeFor(container).width;
  const observer = new ResizeObserver(() => {
    const size = sizeFor(container);
    if (size.width !== width) {
      width = size.width;
      for (const plot of plots) {
        plot.setSize(size);
      }
    }
  });
  observer.observe(container);

  const { totals } = usage;
  const busiest = days.reduce((best, day) => (day.runs > (best?.runs ?? 0) ? day : best), null);
  const others = ['cancelled', 'failed', 'timed_out'].map((status) => totals.by_status[status].runs);
  const caption =
    totals.runs === 0
      ? `No runs in ${month} so far.`
      : `${plural(totals.runs, 'run')} in ${month}: ${formatInteger(totals.by_status.completed.runs)} completed, ${formatInteger(others[0])} cancelled, ` +
        `${formatInteger(others[1])} failed and ${formatInteger(others[2])} timed out; ${plural(totals.requests, 'request')} and ` +
        `${plural(totals.interactions, 'interaction')} counted against your plan. The busiest day was ${formatDay(busiest.date)} (${plural(busiest.runs, 'run')}).`;
  return {
    caption,
    destroy: () => {
      observer.disconnect();
      for (const plot of plots) {
        plot.destroy();
      }
    },
  };
};
