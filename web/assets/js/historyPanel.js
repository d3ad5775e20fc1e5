import { api, apiBlob, apiText } from './api.js';
import { announce, byId, el, showText } from './dom.js';
import { explainApiError } from './explainError.js';
import { downloadBlob, downloadText } from './exportRecords.js';
import { formatDateTime, formatInteger, humanize } from './format.js';

const PAGE_SIZE = 10;

// The server writes every format (docs/formats.md); a download is its bytes as they came.
const DOWNLOADS = [
  { label: 'CSV', accept: 'text/csv', extension: 'csv' },
  { label: 'NDJSON', accept: 'application/x-ndjson', extension: 'ndjson' },
];

// Cancelled (the client left) reads apart from failed (the service's fault): different causes, different fixes.
const STATUS_TEXT = { queued: 'Running', completed: 'Completed', cancelled: 'Cancelled', failed: 'Failed', timed_out: 'Timed out' };

const credentialCell = (credential) =>
  credential.type === 'api_key' ? el('td', {}, 'Key ', el('code', {}, `${credential.key_prefix}…`)) : el('td', { className: 'small' }, 'Browser session');

/** Whether a run was given a scenario: listed events, random ones, or both (its records carry labels). */
const hasScenario = (run) => run.scenario !== null && run.scenario !== undefined;

/** The event types a run's scenario names, listed and random, each once. */
const scenarioTypes = (scenario) => [...new Set([...(scenario.events ?? []).map((event) => event.type), ...(scenario.random?.types ?? [])])];

const smallButton = (text, label, onclick) =>
  el('button', { type: 'button', className: 'button button-small', textContent: text, attrs: { 'aria-label': label }, onclick });

/**
 * The run history card: the account's runs newest first, a page at a time, filtered by preset. A completed
 * run can be shown again (the server makes its records again, byte for byte) or downloaded in a server
 * format; any run can be run again with a new seed.
 */
export const setUpHistory = ({ showResult, runAgain }) => {
  const tbody = byId('history-body');
  const filter = byId('history-preset');
  const statusFilter = byId('history-status');
  const problem = byId('history-error');
  const newer = byId('history-newer');
  const older = byId('history-older');
  const position = byId('history-position');

  // The cursors of the pages seen so far: [null (the newest page), cursor of page 2, …].
  let cursors = [null];
  let page = 0;
  let nextCursor = null;

  const describe = (run) => `${humanize(run.preset)} run of ${formatDateTime(run.created_at)}`;

  const show = async (run, button) => {
    button.setAttribute('aria-disabled', 'true');
    showText(problem, '');
    try {
      const result = await api(`/v1/simulations/${run.simulation_id}/records`);
      // The run's scenario travels with it, so its windows are drawn and its counterfactual can be run.
      await showResult({ ...result, scenario: result.scenario ?? run.scenario ?? null }, `Run of ${formatDateTime(run.created_at)}, shown again`);
    } catch (error) {
      showText(problem, explainApiError(error));
    } finally {
      button.removeAttribute('aria-disabled');
    }
  };

  const download = async (run, format, button) => {
    button.setAttribute('aria-disabled', 'true');
    showText(problem, '');
    try {
      const { text, type } = await apiText(`/v1/simulations/${run.simulation_id}/records`, format.accept);
      downloadText(`simulation-${run.preset}-${run.profile}-seed${run.seed}-n${run.num_interactions}.${format.extension}`, type, text);
      announce(`${format.label} download ready.`);
    } catch (error) {
      showText(problem, explainApiError(error));
    } finally {
      button.removeAttribute('aria-disabled');
    }
  };

  // A scenario run as a labelled benchmark (docs/datasets.md): TimeEval's layout, test files with labels and
  // their matched clean train files, as one zip made by the server while it runs the run again.
  const downloadDataset = async (run, button) => {
    button.setAttribute('aria-disabled', 'true');
    showText(problem, '');
    announce('Preparing the benchmark dataset…');
    try {
      const blob = await apiBlob(`/v1/simulations/${run.simulation_id}/dataset?layout=timeeval`, 'application/zip');
      downloadBlob(`dataset-${run.preset}-${run.profile}-seed${run.seed}-n${run.num_interactions}-timeeval.zip`, blob);
      announce('Benchmark dataset download ready.');
    } catch (error) {
      showText(problem, explainApiError(error));
    } finally {
      button.removeAttribute('aria-disabled');
    }
  };

  // A link serves the run with no credentials (pandas, DuckDB, curl), so it is made on request, not shown
  // with every row. Parquet: what data tools read best, and what the docs' examples load.
  const copyLink = async (run, button) => {
    button.setAttribute('aria-disabled', 'true');
    showText(problem, '');
    try {
      const link = await api(`/v1/simulations/${run.simulation_id}/links`, { method: 'POST', body: { format: 'parquet', expires_in: 86400 } });
      try {
        await navigator.clipboard.writeText(link.url);
        announce(`Download link copied to the clipboard; it serves the run as Parquet until ${formatDateTime(link.expires_at)}.`);
      } catch {
        // No clipboard permission: the link is still the person's, shown where it can be copied by hand.
        showText(problem, `Copy this link by hand: ${link.url}`);
      }
      button.dataset.link = link.url;
    } catch (error) {
      showText(problem, explainApiError(error));
    } finally {
      button.removeAttribute('aria-disabled');
    }
  };

  const runRow = (run) =>
    el(
      'tr',
      { attrs: { 'data-simulation-id': run.simulation_id } },
      el('th', { attrs: { scope: 'row' } }, formatDateTime(run.created_at)),
      el(
        'td',
        {},
        humanize(run.preset),
        hasScenario(run) ? el('span', { className: 'scenario-mark' }, `with ${scenarioTypes(run.scenario).join(', ')}`) : null,
      ),
      el('td', {}, humanize(run.profile)),
      el('td', { className: 'num' }, String(run.seed)),
      el('td', { className: 'num' }, formatInteger(run.num_interactions)),
      el('td', {}, el('span', { className: `badge badge-${run.status}` }, STATUS_TEXT[run.status] ?? run.status)),
      credentialCell(run.credential),
      el(
        'td',
        { className: 'actions' },
        el(
          'div',
          { className: 'row-actions' },
          run.status === 'completed'
            ? [
                smallButton('Show', `Show the ${describe(run)}`, (event) => show(run, event.currentTarget)),
                ...DOWNLOADS.map((format) =>
                  smallButton(format.label, `Download the ${describe(run)} as ${format.label}`, (event) => download(run, format, event.currentTarget)),
                ),
                hasScenario(run)
                  ? Object.assign(
                      smallButton('Benchmark dataset', `Download the ${describe(run)} as benchmark dataset`, (event) => downloadDataset(run, event.currentTarget)),
                      { title: 'Download as benchmark dataset: a zip in TimeEval\'s layout, each sequence with its labels and its clean counterpart' },
                    )
                  : null,
                Object.assign(smallButton('Copy link', `Copy a download link to the ${describe(run)}`, (event) => copyLink(run, event.currentTarget)), {
                  title: 'A Parquet download link for pandas, DuckDB or curl, valid for a day, no key needed',
                }),
              ]
            : null,
          // Named without "seed", "preset" or "profile": those words label the simulation form's own fields.
          Object.assign(smallButton('Run again', `Run the ${describe(run)} again with new random draws`, () => runAgain(run)), {
            title: 'The same inputs with a new seed',
          }),
        ),
      ),
    );

  const load = async () => {
    const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
    if (filter.value !== '') {
      query.set('preset', filter.value);
    }
    if (statusFilter.value !== '') {
      query.set('status', statusFilter.value);
    }
    if (cursors[page] !== null) {
      query.set('cursor', cursors[page]);
    }
    tbody.setAttribute('aria-busy', 'true');
    try {
      const { data, next_cursor: next } = await api(`/v1/simulations?${query}`);
      nextCursor = next;
      newer.hidden = page === 0;
      older.hidden = nextCursor === null;
      tbody.replaceChildren(
        ...(data.length === 0
          ? [el('tr', {}, el('td', { colSpan: 8, className: 'muted' }, filter.value === '' && statusFilter.value === '' ? 'No runs yet.' : 'No runs match these filters.'))]
          : data.map(runRow)),
      );
      position.textContent = data.length === 0 ? '' : `Page ${page + 1}`;
      showText(problem, '');
    } catch (error) {
      tbody.replaceChildren(el('tr', {}, el('td', { colSpan: 8 }, `The history could not be loaded. ${explainApiError(error)}`)));
      newer.hidden = page === 0;
      older.hidden = true;
      position.textContent = '';
    } finally {
      tbody.removeAttribute('aria-busy');
    }
  };

  /** Back to the newest page (after a new run, or a new filter). */
  const reload = () => {
    cursors = [null];
    page = 0;
    return load();
  };

  const setPresets = (catalog) => {
    filter.replaceChildren(el('option', { value: '', text: 'All presets' }), ...catalog.map((preset) => el('option', { value: preset.name, text: humanize(preset.name) })));
  };

  filter.addEventListener('change', () => void reload());
  statusFilter.addEventListener('change', () => void reload());
  older.addEventListener('click', () => {
    if (nextCursor !== null) {
      cursors = [...cursors.slice(0, page + 1), nextCursor];
      page += 1;
      void load();
    }
  });
  newer.addEventListener('click', () => {
    if (page > 0) {
      page -= 1;
      void load();
    }
  });

  return { load: reload, setPresets };
};
