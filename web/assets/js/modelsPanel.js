import { api } from './api.js';
import { announce, byId, el, showText } from './dom.js';
import { explainApiError } from './explainError.js';
import { formatDateTime, formatInteger, formatNumber, plural } from './format.js';
import { locateJsonPaths, placeOfIssue } from './jsonPaths.js';
import { diffLines } from './lineDiff.js';
import { drawStateGraph } from './stateGraph.js';

// The Models page (docs/console.md "Models"): the account's models, a definition editor checked as one
// types (POST /v1/models/validate, debounced), each issue and warning on its line, the state graph drawn
// from the definition, the validation sample as a chart and a table, the versions of a model compared
// line by line, and "Run" taking the model to the Run page. Nothing here is stored until "Save".

const VALIDATE_DELAY_MS = 400;
const NAME = /^[a-z][a-z0-9_]{0,39}$/;

/** The record fields of a definition, as the catalog would list them (for the chart of the sample). */
const catalogOf = (name, definition) => ({
  name,
  record_fields: [
    { name: 'sequence_id', type: 'integer' },
    { name: 'interaction_id', type: 'integer' },
    { name: 'state', type: 'string' },
    ...(Array.isArray(definition.fields) ? definition.fields.map((field) => ({ name: field.name, type: field.type })) : []),
  ],
  supported_states: Array.isArray(definition.states) ? definition.states : [],
  scenario_events: [],
});

const pretty = (definition) => `${JSON.stringify(definition, null, 2)}\n`;

export const setUpModels = ({ runModel, onSaved }) => {
  const body = byId('models-body');
  const listError = byId('models-error');
  const gallery = byId('model-gallery');
  const nameInput = byId('model-name');
  const editor = byId('model-definition');
  const gutter = byId('model-gutter');
  const status = byId('model-status');
  const issuesList = byId('model-issues');
  const saveButton = byId('model-save');
  const runButton = byId('model-run');
  const saveStatus = byId('model-save-status');
  const graphBox = byId('model-graph');
  const graphWords = byId('model-graph-words');
  const sampleFigure = byId('model-sample-figure');
  const sampleHead = byId('model-sample-head');
  const sampleBody = byId('model-sample-body');
  const statesBody = byId('model-states-body');
  const versionsCard = byId('model-versions');
  const versionFrom = byId('model-version-from');
  const versionTo = byId('model-version-to');
  const diffList = byId('model-diff');
  const diffSummary = byId('model-diff-summary');

  let timer = null;
  let sequence = 0;
  let chart = null;
  let stored = null;
  const versions = new Map();

  const drawGutter = (issuesByLine = new Map()) => {
    const count = editor.value.split('\n').length;
    gutter.replaceChildren(
      ...Array.from({ length: count }, (_, index) => {
        const kind = issuesByLine.get(index + 1);
        return el('span', { className: kind === undefined ? '' : `gutter-${kind}` }, String(index + 1), '\n');
      }),
    );
  };

  const goToLine = (line, column) => {
    const lines = editor.value.split('\n');
    const offset = lines.slice(0, line - 1).reduce((sum, text) => sum + text.length + 1, 0) + Math.max(0, column - 1);
    editor.focus();
    editor.setSelectionRange(offset, offset);
  };

  const showProblems = (issues, warnings) => {
    const places = locateJsonPaths(editor.value);
    const byLine = new Map();
    const entry = (issue, kind) => {
      const { line, column } = placeOfIssue(places, issue);
      if (kind === 'issue' || !byLine.has(line)) {
        byLine.set(line, kind);
      }
      return { line, column, kind, issue };
    };
    const entries = [...issues.map((issue) => entry(issue, 'issue')), ...warnings.map((issue) => entry(issue, 'warning'))].sort((a, b) => a.line - b.line || a.column - b.column);
    issuesList.replaceChildren(
      ...entries.map(({ line, column, kind, issue }) =>
        el(
          'li',
          { className: `model-${kind}`, attrs: { 'data-line': line, 'data-path': issue.path } },
          el(
            'button',
            { type: 'button', className: 'link-button', onclick: () => goToLine(line, column), attrs: { 'aria-label': `${kind === 'issue' ? 'Problem' : 'Warning'} on line ${line}, column ${column}: ${issue.message}. Go to it.` } },
            `Line ${line}:${column}`,
          ),
          ' ',
          el('span', { className: `badge badge-${kind === 'issue' ? 'failed' : 'cancelled'}` }, kind === 'issue' ? 'Problem' : 'Warning'),
          ' ',
          el('code', {}, issue.path || '(definition)'),
          ' ',
          issue.message,
        ),
      ),
    );
    drawGutter(byLine);
  };

  const drawSample = async (definition, sample) => {
    chart?.destroy();
    chart = null;
    sampleFigure.dataset.points = '0';
    if (sample === null) {
      sampleHead.replaceChildren();
      sampleBody.replaceChildren(el('tr', {}, el('td', { className: 'muted' }, 'No sample: the definition has problems.')));
      statesBody.replaceChildren();
      byId('model-sample-caption').textContent = '';
      return;
    }
    const records = sample.records;
    const fields = Object.keys(records[0] ?? {});
    sampleHead.replaceChildren(el('tr', {}, ...fields.map((field) => el('th', { attrs: { scope: 'col' } }, field))));
    sampleBody.replaceChildren(
      ...records.map((record) => el('tr', {}, ...fields.map((field) => el('td', { className: typeof record[field] === 'number' ? 'num' : '' }, record[field] ?? 'null')))),
    );
    statesBody.replaceChildren(
      ...Object.entries(sample.summary.states).map(([state, share]) => el('tr', {}, el('th', { attrs: { scope: 'row' } }, state), el('td', { className: 'num' }, `${formatNumber(share * 100)} %`))),
      ...Object.entries(sample.summary.fields).map(([field, figures]) =>
        el(
          'tr',
          {},
          el('th', { attrs: { scope: 'row' } }, field),
          el('td', { className: 'num' }, `mean ${figures.mean === null ? '–' : formatNumber(figures.mean)}, ${figures.min === null ? '–' : formatNumber(figures.min)} to ${figures.max === null ? '–' : formatNumber(figures.max)}${figures.nulls > 0 ? `, ${plural(figures.nulls, 'null')}` : ''}`),
        ),
      ),
    );
    // Worded without "seed", "preset" or "profile" alone: those words label the run form's fields.
    byId('model-states-caption').textContent = `Summary of ${formatInteger(sample.summary.records)} records of the default profile: each state's share, and each number field`;
    try {
      const { drawSimulationChart } = await import('./simulationChart.js');
      chart = drawSimulationChart(byId('model-sample-chart'), { data: records }, catalogOf(nameInput.value, definition));
      byId('model-sample-caption').textContent = chart.caption;
      sampleFigure.dataset.points = String(chart.points);
    } catch {
      byId('model-sample-caption').textContent = 'The sample could not be charted; the table below has it.';
    }
  };

  const validate = async () => {
    const mine = ++sequence;
    let definition;
    try {
      definition = JSON.parse(editor.value);
    } catch (error) {
      showText(status, 'Not JSON yet.');
      const at = /position (\d+)/.exec(String(error.message));
      const before = editor.value.slice(0, at === null ? editor.value.length : Number(at[1]));
      const line = before.split('\n').length;
      showProblems([], []);
      issuesList.replaceChildren(el('li', { className: 'model-issue', attrs: { 'data-line': line } }, `Line ${line}: this is not JSON yet (${String(error.message)}).`));
      drawGutter(new Map([[line, 'issue']]));
      editor.setAttribute('aria-invalid', 'true');
      return;
    }
    showText(status, 'Checking…');
    try {
      const answer = await api('/v1/models/validate', { method: 'POST', body: definition });
      if (mine !== sequence) {
        return;
      }
      editor.setAttribute('aria-invalid', String(!answer.valid));
      showProblems(answer.issues, answer.warnings);
      const problems = plural(answer.issues.length, 'problem');
      const warnings = plural(answer.warnings.length, 'warning');
      showText(status, answer.valid ? `Valid, with ${warnings}.` : `${problems} and ${warnings}.`);
      status.dataset.valid = String(answer.valid);
      if (answer.valid || typeof definition.states === 'object') {
        const graph = drawStateGraph(graphBox, definition, { titleId: 'model-graph-title' });
        graphWords.replaceChildren(...graph.words.map((line) => el('li', {}, line)));
        graphBox.dataset.states = String(graph.states);
        graphBox.dataset.transitions = String(graph.transitions);
      }
      await drawSample(definition, answer.sample);
    } catch (error) {
      if (mine === sequence) {
        showText(status, `The definition could not be checked. ${explainApiError(error)}`);
      }
    }
  };

  const schedule = () => {
    clearTimeout(timer);
    runButton.hidden = true;
    timer = setTimeout(() => void validate(), VALIDATE_DELAY_MS);
  };

  editor.addEventListener('input', () => {
    drawGutter();
    schedule();
  });
  editor.addEventListener('scroll', () => {
    gutter.scrollTop = editor.scrollTop;
  });

  const load = (name, text) => {
    nameInput.value = name;
    editor.value = text;
    drawGutter();
    schedule();
  };

  const loadGallery = async () => {
    try {
      const index = await api(byId('model-gallery').dataset.index);
      gallery.replaceChildren(el('option', { value: '' }, 'Choose a model…'), ...index.map((entry) => el('option', { value: entry.name }, `${entry.name}: ${entry.description}`)));
    } catch {
      gallery.replaceChildren(el('option', { value: '' }, 'The gallery could not be loaded'));
    }
  };

  gallery.addEventListener('change', async () => {
    if (gallery.value === '') {
      return;
    }
    const response = await fetch(`${byId('model-gallery').dataset.base}/${gallery.value}.json`);
    load(gallery.value, await response.text());
    announce(`The ${gallery.value} model from the gallery is in the editor.`);
  });

  const showVersions = async (name, latest) => {
    versionsCard.hidden = latest < 1;
    const numbers = Array.from({ length: latest }, (_, index) => latest - index);
    const option = (number) => el('option', { value: String(number) }, `Version ${number}`);
    versionFrom.replaceChildren(...numbers.map(option));
    versionTo.replaceChildren(...numbers.map(option));
    versionTo.value = String(latest);
    versionFrom.value = String(Math.max(1, latest - 1));
    byId('model-versions-title').textContent = `Versions of ${name}`;
    await compare();
  };

  const versionText = async (name, number) => {
    const key = `${name}@${number}`;
    if (!versions.has(key)) {
      versions.set(key, api(`/v1/models/${encodeURIComponent(name)}/versions/${number}`).then((model) => pretty(model.definition)));
    }
    return versions.get(key);
  };

  const compare = async () => {
    if (stored === null) {
      return;
    }
    try {
      const [before, after] = await Promise.all([versionText(stored.name, versionFrom.value), versionText(stored.name, versionTo.value)]);
      const lines = diffLines(before, after);
      const added = lines.filter((line) => line.kind === 'added').length;
      const removed = lines.filter((line) => line.kind === 'removed').length;
      diffSummary.textContent =
        versionFrom.value === versionTo.value ? 'The same version on both sides.' : `From version ${versionFrom.value} to ${versionTo.value}: ${plural(added, 'line')} added, ${plural(removed, 'line')} removed.`;
      // Unchanged stretches shrink to their first and last lines, so a change is found at a glance.
      const shown = lines.filter((line, index) => line.kind !== 'same' || lines.slice(Math.max(0, index - 2), index + 3).some((near) => near.kind !== 'same'));
      diffList.replaceChildren(
        ...shown.map((line) =>
          el(
            'li',
            { className: `diff-${line.kind}`, attrs: { 'data-kind': line.kind } },
            el('span', { className: 'diff-mark', attrs: { 'aria-label': line.kind === 'added' ? 'added' : line.kind === 'removed' ? 'removed' : 'unchanged' } }, line.kind === 'added' ? '+' : line.kind === 'removed' ? '−' : ' '),
            el('span', { className: 'diff-text' }, line.text),
          ),
        ),
      );
    } catch (error) {
      diffSummary.textContent = `The versions could not be compared. ${explainApiError(error)}`;
    }
  };
  versionFrom.addEventListener('change', () => void compare());
  versionTo.addEventListener('change', () => void compare());

  const open = async (name) => {
    try {
      const model = await api(`/v1/models/${encodeURIComponent(name)}`);
      stored = model;
      load(model.name, pretty(model.definition));
      runButton.hidden = false;
      await showVersions(model.name, model.version);
    } catch (error) {
      showText(listError, explainApiError(error));
    }
  };

  const list = async () => {
    try {
      const models = await api('/v1/models');
      body.replaceChildren(
        ...(models.length === 0
          ? [el('tr', {}, el('td', { colSpan: 5, className: 'muted' }, 'No models yet. Start from the gallery below, then save it.'))]
          : models.map((model) =>
              el(
                'tr',
                { attrs: { 'data-model': model.name } },
                el('th', { attrs: { scope: 'row' } }, model.name),
                el('td', { className: 'num' }, String(model.version)),
                el('td', {}, model.description),
                el('td', {}, formatDateTime(model.created_at)),
                el(
                  'td',
                  { className: 'actions' },
                  el(
                    'div',
                    { className: 'row-actions row-actions-two' },
                    el('button', { type: 'button', className: 'button button-small', textContent: 'Open', attrs: { 'aria-label': `Open the model ${model.name}` }, onclick: () => void open(model.name) }),
                    el('button', { type: 'button', className: 'button button-small', textContent: 'Run', attrs: { 'aria-label': `Run the model ${model.name}` }, onclick: () => runModel(model.name) }),
                  ),
                ),
              ),
            )),
      );
      showText(listError, '');
      return models;
    } catch (error) {
      showText(listError, `Your models could not be loaded. ${explainApiError(error)}`);
      return [];
    }
  };

  saveButton.addEventListener('click', async () => {
    const name = nameInput.value.trim();
    if (!NAME.test(name)) {
      nameInput.setAttribute('aria-invalid', 'true');
      showText(saveStatus, 'Name: a lowercase letter, then up to 39 lowercase letters, digits or underscores.');
      nameInput.focus();
      return;
    }
    nameInput.removeAttribute('aria-invalid');
    let definition;
    try {
      definition = JSON.parse(editor.value);
    } catch {
      showText(saveStatus, 'The definition is not JSON yet; see the problem listed above.');
      return;
    }
    try {
      const model = await api(`/v1/models/${encodeURIComponent(name)}`, { method: 'PUT', body: definition });
      stored = model;
      showText(saveStatus, `Saved as ${model.name}, version ${model.version}.`);
      announce(`Saved as ${model.name}, version ${model.version}.`);
      runButton.hidden = false;
      await Promise.all([list(), showVersions(model.name, model.version), onSaved()]);
    } catch (error) {
      if (error.code === 'validation_failed') {
        showProblems(Array.isArray(error.details.issues) ? error.details.issues : [], []);
      }
      showText(saveStatus, `Not saved. ${explainApiError(error)}`);
    }
  });

  runButton.addEventListener('click', () => {
    if (stored !== null) {
      runModel(stored.name);
    }
  });

  drawGutter();
  return { list, loadGallery };
};
