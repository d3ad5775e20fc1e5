import { api } from './api.js';
import { announce, byId, el, showText } from './dom.js';
import { explainApiError, humanIssue } from './explainError.js';
import { formatDuration, formatInteger, humanize, plural } from './format.js';
import { downloadRun, downloadText } from './exportRecords.js';
import { renderFidelityFacts } from './fidelityFacts.js';
import { columnsOf, renderRecordsTable } from './recordsTable.js';
import { setUpScenarioEditor } from './scenarioEditor.js';
import { runRequest, scenarioOf } from './counterfactual.js';
import { setUpCounterfactual } from './counterfactualPanel.js';

const SEED_MAX = 4_294_967_295;

const option = (value, text, { selected = false, disabled = false } = {}) => el('option', { value, text, selected, disabled });

/** The select's value for one of the account's models (presets are their own names). */
const MODEL_PREFIX = 'model:';

/** The catalog entry a result was made from: its model's, or its preset's. */
const catalogKey = (run) => (run.model ? `${MODEL_PREFIX}${run.model.name}` : run.preset);

const parseWhole = (text) => (/^\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN);

/** Engine 4 on: records carry event_time, and runs take order, population and start_time. */
const EVENT_TIME_MAJOR = 4;
const hasEventTime = (entry) => (entry?.engine_versions ?? []).some((version) => Number(String(version).split('.')[0]) >= EVENT_TIME_MAJOR);

/** A datetime-local value read as UTC ("2026-03-01T09:30" → "2026-03-01T09:30:00.000Z"), or null. */
const utcOf = (value) => {
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?$/.exec(value.trim());
  return match === null ? null : `${match[1]}:${match[2] ?? '00'}.${(match[3] ?? '').padEnd(3, '0')}Z`;
};

/** The simulation card: the form, the run, and the result as chart, table, downloads and reproducibility line. */
export const setUpSimulation = ({ onFinished }) => {
  const form = byId('simulation-form');
  const presetSelect = byId('sim-preset');
  const profileSelect = byId('sim-profile');
  const seedInput = byId('sim-seed');
  const countInput = byId('sim-count');
  const runButton = byId('sim-run');
  const problem = byId('sim-error');
  const resultBox = byId('sim-result');
  const figure = byId('sim-figure');
  const tableRows = byId('sim-table-rows');
  const timing = byId('sim-timing');
  const orderSelect = byId('sim-order');
  const populationInput = byId('sim-population');
  const startInput = byId('sim-start-time');

  let presets = new Map();
  let maxPerRun = Number(countInput.max);
  let running = false;
  let lockedUntil = 0;
  let chart = null;
  let latest = null;
  const editor = setUpScenarioEditor();
  // The form's fields that a 422 issue can name by its path, and where its message goes.
  const placed = { seed: seedInput, num_interactions: countInput, population: populationInput, start_time: startInput };

  const fillProfiles = () => {
    const preset = presets.get(presetSelect.value);
    profileSelect.replaceChildren(
      ...(preset?.supported_profiles ?? []).map((profile) =>
        option(profile, humanize(profile), { selected: profile === preset.default_profile }),
      ),
    );
    byId('sim-preset-description').textContent = preset?.description ?? '';
    // The event-time inputs only where the run's engine (the newest, as the form sends none) has a clock.
    timing.hidden = preset !== undefined && !hasEventTime(preset);
    editor.setPreset(preset);
  };

  let models = [];
  let presetCatalog = [];
  /** The presets, then the account's models in a group of their own. */
  const fillChoices = (selected) => {
    presetSelect.replaceChildren(
      ...presetCatalog.map((preset) =>
        option(preset.name, humanize(preset.name) + (preset.available ? '' : ' (unavailable)'), {
          selected: preset.name === selected,
          disabled: !preset.available,
        }),
      ),
      ...(models.length === 0
        ? []
        : [el('optgroup', { label: 'Your models' }, ...models.map((model) => option(`${MODEL_PREFIX}${model.name}`, `${model.name} (model, version ${model.version})`, { selected: `${MODEL_PREFIX}${model.name}` === selected })))]),
    );
  };

  /** The account's models (each with its catalog, as GET /v1/models/{name} answers), offered beside the presets. */
  const setModels = (list) => {
    models = list;
    presets = new Map([...presetCatalog.map((preset) => [preset.name, preset]), ...list.map((model) => [`${MODEL_PREFIX}${model.name}`, { ...model.catalog, name: model.name, available: true }])]);
    const selected = presetSelect.value;
    fillChoices(selected);
    fillProfiles();
  };

  /** Chooses one of the account's models in the form (the Models page's "Run"). */
  const chooseModel = (name) => {
    const value = `${MODEL_PREFIX}${name}`;
    if (!presets.has(value)) {
      return false;
    }
    presetSelect.value = value;
    fillProfiles();
    return true;
  };

  const setPresets = (catalog) => {
    presetCatalog = catalog;
    presets = new Map(catalog.map((preset) => [preset.name, preset]));
    const preferred = catalog.find((preset) => preset.name === 'finance' && preset.available) ?? catalog.find((preset) => preset.available);
    fillChoices(preferred?.name);
    fillProfiles();
  };

  const setPlanLimit = (limit) => {
    maxPerRun = limit;
    countInput.max = String(limit);
    if (Number(countInput.value) > limit) {
      countInput.value = String(limit);
    }
    byId('sim-count-hint').textContent = `Up to ${formatInteger(limit)} per run on your plan.`;
  };

  const setBusy = (busy) => {
    running = busy;
    // aria-disabled rather than disabled: a disabled button drops keyboard focus to the page's start.
    runButton.setAttribute('aria-disabled', String(busy));
    runButton.textContent = busy ? 'Running…' : 'Run simulation';
    resultBox.setAttribute('aria-busy', String(busy));
  };

  const fail = (field, message) => {
    field.setAttribute('aria-invalid', 'true');
    showText(problem, message);
    field.focus();
    return null;
  };

  const readForm = () => {
    for (const field of Object.values(placed)) {
      field.removeAttribute('aria-invalid');
      showText(byId(`${field.id}-error`), '');
    }
    const count = parseWhole(countInput.value);
    if (!(count >= 1 && count <= maxPerRun)) {
      return fail(countInput, `Number of interactions: a whole number from 1 to ${formatInteger(maxPerRun)}.`);
    }
    const chosen = presetSelect.value;
    const body = chosen.startsWith(MODEL_PREFIX)
      ? { model: chosen.slice(MODEL_PREFIX.length), profile: profileSelect.value, num_interactions: count }
      : { preset: chosen, profile: profileSelect.value, num_interactions: count };
    if (seedInput.value.trim() !== '') {
      const seed = parseWhole(seedInput.value);
      if (!(seed >= 0 && seed <= SEED_MAX)) {
        return fail(seedInput, `Seed: a whole number from 0 to ${formatInteger(SEED_MAX)}, or empty for a random one.`);
      }
      body.seed = seed;
    }
    if (!timing.hidden) {
      const population = parseWhole(populationInput.value);
      if (!(population >= 1 && population <= 10_000)) {
        return fail(populationInput, 'Population: a whole number from 1 to 10,000.');
      }
      body.order = orderSelect.value;
      body.population = population;
      if (startInput.value.trim() !== '') {
        const start = utcOf(startInput.value);
        if (start === null || Number.isNaN(Date.parse(start))) {
          return fail(startInput, 'Start time: a date and time (UTC), or empty for 2026-01-01 00:00.');
        }
        body.start_time = start;
      }
    }
    const scenario = editor.read();
    if (scenario === null) {
      showText(problem, 'Some scenario values are not numbers; see the marked fields.');
      return null;
    }
    if (scenario !== undefined) {
      body.scenario = scenario;
    }
    return body;
  };

  /** A 422's issues beside the fields they name (the scenario's in the editor), the rest in the notice. */
  const showIssues = (error) => {
    const { first, rest } = editor.showIssues(Array.isArray(error.details.issues) ? error.details.issues : []);
    let focus = first;
    const unplaced = [];
    for (const issue of rest) {
      const field = Object.hasOwn(placed, issue.path) ? placed[issue.path] : undefined;
      if (field === undefined) {
        unplaced.push(issue.path ? `${issue.path}: ${humanIssue(issue.message)}` : humanIssue(issue.message));
      } else {
        field.setAttribute('aria-invalid', 'true');
        showText(byId(`${field.id}-error`), humanIssue(issue.message));
        focus ??= field;
      }
    }
    showText(problem, ['Some values were not accepted; see the marked fields.', ...unplaced].join(' '));
    focus?.focus();
  };

  const renderChart = async (result, preset) => {
    chart?.destroy();
    chart = null;
    figure.dataset.points = '0';
    figure.dataset.panels = '0';
    figure.dataset.counterfactual = '0';
    figure.dataset.zoom = '';
    try {
      const { drawSimulationChart } = await import('./simulationChart.js');
      chart = drawSimulationChart(byId('sim-chart'), result, preset, { counterfactual: counterfactual.shown() });
      byId('sim-chart-caption').textContent = chart.caption;
      byId('sim-legend').replaceChildren(
        ...chart.stateShares.map(({ state, count, color }) => {
          const swatch = el('span', { className: 'swatch', attrs: { 'aria-hidden': 'true' } });
          swatch.style.backgroundColor = color;
          const share = result.data.length === 0 ? 0 : (count / result.data.length) * 100;
          // A state that occurred at all never reads as 0%.
          const shown = count > 0 && share < 0.5 ? '<1%' : `${Math.round(share)}%`;
          return el('li', {}, swatch, `${state} · ${shown}`);
        }),
      );
      counterfactual.setLegend(chart.events);
      figure.dataset.panels = String(chart.panels);
      figure.dataset.points = String(chart.points);
      figure.dataset.counterfactual = String(chart.counterfactualPoints);
      // The zoom in the axis's own terms: interactions "30-45", or UTC instants "2026-…Z/2026-…Z".
      figure.dataset.axis = chart.axis;
      figure.dataset.zoom =
        chart.zoom === null || chart.zoom === undefined
          ? ''
          : chart.axis === 'time'
            ? `${new Date(chart.zoom.min).toISOString()}/${new Date(chart.zoom.max).toISOString()}`
            : `${chart.zoom.min}-${chart.zoom.max}`;
    } catch {
      byId('sim-chart-caption').textContent = 'The chart could not be drawn; the table and downloads below have the data.';
    }
  };

  const render = async (result, title = 'Result') => {
    byId('sim-result-title').textContent = title;
    const preset = presets.get(catalogKey(result));
    const records = Array.isArray(result.data) ? result.data : [];
    const engine = result.metadata?.service_version ?? 'unknown';
    const fields = columnsOf(preset, records, engine);
    latest = { result, fields };
    counterfactual.setResult(result);
    resultBox.hidden = false;
    byId('sim-summary').textContent =
      `${plural(records.length, 'interaction')} of ${humanize(result.preset)} (${humanize(result.profile)}) ` +
      `generated in ${formatInteger(result.metadata?.compute_ms ?? 0)} ms` +
      (scenarioOf(result) === null ? '.' : `, with a scenario of ${plural(scenarioOf(result).events.length, 'event')}.`);
    const source = result.model ? `model ${result.model.name}@${result.model.version}` : `preset ${result.preset}`;
    byId('sim-repro').textContent = result.metadata?.reproducible
      ? `Reproducible: ${source}, profile ${result.profile}, seed ${result.seed}, engine ${engine}. The same values give the same records.`
      : `${source.charAt(0).toUpperCase()}${source.slice(1)}, profile ${result.profile}, seed ${result.seed}, engine ${engine}. This run is not marked reproducible.`;
    byId('sim-request').textContent = `POST /v1/simulations\n${JSON.stringify(runRequest(result), null, 2)}`;
    renderRecordsTable(records, fields, tableRows.value);
    await Promise.all([renderChart(result, preset), renderFidelityFacts(byId('sim-fidelity'), result)]);
  };

  const counterfactual = setUpCounterfactual({
    redraw: () => renderChart(latest.result, presets.get(catalogKey(latest.result))),
    onFinished,
  });

  tableRows.addEventListener('change', () => {
    if (latest !== null) {
      renderRecordsTable(latest.result.data, latest.fields, tableRows.value);
    }
  });

  const baseName = () => {
    const { result } = latest;
    return `simulation-${result.preset}-${result.profile}-seed${result.seed}-n${result.num_interactions}`;
  };

  byId('download-json').addEventListener('click', () => {
    if (latest !== null) {
      downloadText(`${baseName()}.json`, 'application/json', `${JSON.stringify(latest.result, null, 2)}\n`);
    }
  });
  // The same run again, in the server's own CSV or NDJSON: seed and engine and all, so the records are the same.
  const downloadAs = (accept, extension) => async () => {
    if (latest === null) {
      return;
    }
    try {
      await downloadRun(runRequest(latest.result), accept, `${baseName()}.${extension}`);
    } catch (error) {
      showText(problem, explainApiError(error));
    }
  };
  byId('download-csv').addEventListener('click', downloadAs('text/csv', 'csv'));
  byId('download-ndjson').addEventListener('click', downloadAs('application/x-ndjson', 'ndjson'));

  presetSelect.addEventListener('change', fillProfiles);

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (running) {
      return;
    }
    const wait = Math.ceil((lockedUntil - Date.now()) / 1000);
    if (wait > 0) {
      // Not sent: it would only be refused again, and a refused request still counts against the minute.
      showText(problem, `Your plan's limit is still reached. Try again in ${formatDuration(wait)}.`);
      return;
    }
    const body = readForm();
    if (body === null) {
      return;
    }
    showText(problem, '');
    setBusy(true);
    announce('Running the simulation…');
    try {
      const result = await api('/v1/simulations', { method: 'POST', body });
      await render(result);
      announce(`Simulation finished: ${plural(result.data.length, 'interaction')}.`);
    } catch (error) {
      if (error.status === 429 && error.retryAfter !== null) {
        lockedUntil = Date.now() + error.retryAfter * 1000;
      }
      if (error.code === 'validation_failed') {
        showIssues(error);
      } else {
        showText(problem, explainApiError(error));
      }
    } finally {
      setBusy(false);
      onFinished();
    }
  });

  /** A result from elsewhere (a run of the history shown again), in place of the latest run's. */
  const showResult = async (result, title) => {
    await render(result, title);
    announce(`${title}: ${plural(result.data.length, 'interaction')}.`);
    byId('sim-result-title').scrollIntoView({ block: 'start' });
  };

  /** The inputs of an earlier run with a new seed (drawn by the service), run as if typed into the form. */
  const runAgain = (run) => {
    if (presets.has(catalogKey(run))) {
      presetSelect.value = catalogKey(run);
      fillProfiles();
    }
    profileSelect.value = run.profile;
    countInput.value = String(Math.min(run.num_interactions, maxPerRun));
    seedInput.value = '';
    // Engine 4's inputs come back too (a run of an older engine leaves the defaults).
    orderSelect.value = run.order ?? 'sequence';
    populationInput.value = String(run.population ?? 100);
    startInput.value = typeof run.start_time === 'string' && run.start_time !== '2026-01-01T00:00:00.000Z' ? run.start_time.slice(0, 19) : '';
    editor.load(run.scenario);
    form.requestSubmit();
  };

  return { setPresets, setModels, chooseModel, setPlanLimit, showResult, runAgain };
};
