import { api } from './api.js';
import { byId, el, showText } from './dom.js';
import { explainApiError } from './explainError.js';
import { formatDateTime, formatInteger } from './format.js';

const OUTCOME_COLUMNS = [
  { status: 'completed', label: 'Completed' },
  { status: 'cancelled', label: 'Cancelled' },
  { status: 'failed', label: 'Failed' },
  { status: 'timed_out', label: 'Timed out' },
];
const RUNNING = { status: 'queued', label: 'Running' };

const num = (value) => el('td', { className: value === 0 ? 'num muted' : 'num' }, formatInteger(value));

const headRow = (first, outcomes, last = []) =>
  el(
    'tr',
    {},
    el('th', { attrs: { scope: 'col' } }, first),
    el('th', { className: 'num', attrs: { scope: 'col' } }, 'Runs'),
    ...outcomes.map((outcome) => el('th', { className: 'num', attrs: { scope: 'col' } }, outcome.label)),
    el('th', { className: 'num', attrs: { scope: 'col' } }, 'Requests counted'),
    el('th', { className: 'num', attrs: { scope: 'col' } }, 'Interactions counted'),
    ...last.map((text) => el('th', { attrs: { scope: 'col' } }, text)),
  );

const countCells = (counts, outcomes) => [
  num(counts.runs),
  ...outcomes.map((outcome) => num(counts.by_status[outcome.status]?.runs ?? 0)),
  num(counts.requests),
  num(counts.interactions),
];

/**
 * The usage-over-time card: this month's runs per day by how they ended (chart and table), for every
 * credential or one, and this month per credential. Tells `onCredentials` each credential's figures
 * (the keys table shows them).
 */
export const setUpUsageDaily = ({ onCredentials = () => {} } = {}) => {
  const select = byId('usage-credential');
  const problem = byId('usage-daily-error');
  const figure = byId('usage-figure');
  let keys = [];
  let chart = null;
  let latest = null;

  const keyName = (id, prefix) => {
    const key = keys.find((candidate) => candidate.id === id);
    return key === undefined ? `Key ${prefix}…` : `Key “${key.name}” (${key.key_prefix}…)`;
  };
  const credentialName = (credential) =>
    credential.type === 'session' ? 'Browser sessions' : keyName(credential.api_key_id, credential.key_prefix);

  const renderTables = (usage) => {
    const outcomes = usage.totals.by_status.queued.runs > 0 ? [...OUTCOME_COLUMNS, RUNNING] : OUTCOME_COLUMNS;
    const busy = usage.days.filter((day) => day.runs > 0).reverse();
    byId('usage-days-caption').textContent =
      select.value === '' ? 'Days with runs, newest first' : `Days with runs of ${select.selectedOptions[0]?.textContent ?? ''}, newest first`;
    byId('usage-days-head').replaceChildren(headRow('Day (UTC)', outcomes));
    byId('usage-days-body').replaceChildren(
      ...(busy.length === 0
        ? [el('tr', {}, el('td', { colSpan: outcomes.length + 4, className: 'muted' }, 'No runs this month yet.'))]
        : busy.map((day) => el('tr', { attrs: { 'data-date': day.date } }, el('th', { attrs: { scope: 'row' } }, day.date), ...countCells(day, outcomes)))),
    );
    byId('usage-credentials-head').replaceChildren(headRow('Credential', outcomes, ['Last run']));
    byId('usage-credentials-body').replaceChildren(
      ...(usage.credentials.length === 0
        ? [el('tr', {}, el('td', { colSpan: outcomes.length + 5, className: 'muted' }, 'No runs this month yet.'))]
        : usage.credentials.map((entry) =>
            el(
              'tr',
              { attrs: { 'data-credential': entry.credential.type === 'session' ? 'session' : entry.credential.api_key_id } },
              el('th', { attrs: { scope: 'row' } }, credentialName(entry.credential)),
              ...countCells(entry, outcomes),
              el('td', {}, formatDateTime(entry.last_run_at)),
            ),
          )),
    );
  };

  const renderChart = async (usage) => {
    chart?.destroy();
    chart = null;
    figure.dataset.days = '0';
    try {
      // Imported when drawn, as the simulation chart is: uPlot is not on the page's critical path.
      const { drawUsageChart, OUTCOMES } = await import('./usageChart.js');
      chart = drawUsageChart(byId('usage-chart'), usage);
      byId('usage-chart-caption').textContent = chart.caption;
      byId('usage-outcomes').replaceChildren(
        ...OUTCOMES.filter((outcome) => outcome.status !== 'queued' || usage.totals.by_status.queued.runs > 0).map((outcome) => {
          const swatch = el('span', { className: 'swatch', attrs: { 'aria-hidden': 'true' } });
          swatch.style.backgroundColor = outcome.color;
          return el('li', {}, swatch, outcome.label);
        }),
      );
      figure.dataset.days = String(usage.days.length);
    } catch {
      byId('usage-chart-caption').textContent = 'The chart could not be drawn; the tables below have the figures.';
    }
  };

  const load = async () => {
    const query = select.value === '' ? '' : `?credential=${encodeURIComponent(select.value)}`;
    figure.setAttribute('aria-busy', 'true');
    try {
      const usage = await api(`/v1/usage/daily${query}`);
      latest = usage;
      showText(problem, '');
      renderTables(usage);
      onCredentials(usage.credentials);
      await renderChart(usage);
    } catch (error) {
      showText(problem, `Usage by day could not be loaded. ${explainApiError(error)}`);
    } finally {
      figure.removeAttribute('aria-busy');
    }
  };

  /** The credentials to choose from: browser sessions and every key, active or not (a revoked key ran too). */
  const setKeys = (list) => {
    keys = list;
    const chosen = select.value;
    select.replaceChildren(
      el('option', { value: '', text: 'All keys and browser sessions' }),
      el('option', { value: 'session', text: 'Browser sessions' }),
      ...keys.map((key) => el('option', { value: key.id, text: `Key “${key.name}” (${key.key_prefix}…)${key.is_active ? '' : ', revoked'}` })),
    );
    select.value = [...select.options].some((option) => option.value === chosen) ? chosen : '';
    if (latest !== null) {
      renderTables(latest);
    }
  };

  select.addEventListener('change', () => void load());

  return { load, setKeys };
};
