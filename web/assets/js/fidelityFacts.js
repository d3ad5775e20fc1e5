import { api } from './api.js';
import { el } from './dom.js';
import { formatInteger, humanize } from './format.js';

// One request per preset and engine per page: the facts only change with the engine.
const reports = new Map();

const loadReport = (preset, engine) => {
  const key = `${preset}@${engine ?? 'newest'}`;
  if (!reports.has(key)) {
    const query = engine === undefined ? '' : `?engine_version=${encodeURIComponent(engine)}`;
    // A failed load is forgotten, so the next result tries again.
    reports.set(
      key,
      api(`/v1/presets/${encodeURIComponent(preset)}/fidelity${query}`).catch((error) => {
        reports.delete(key);
        throw error;
      }),
    );
  }
  return reports.get(key);
};

/**
 * The facts of one profile, one row per thing measured: two facts about the same quantity (the heavy
 * tails of engine 2 and the calibrated range of engine 3 are both the excess kurtosis of daily_return)
 * share its measured value, so they read as one row with both targets, holding when both hold.
 */
const factRows = (facts) => {
  const rows = new Map();
  for (const fact of facts) {
    const row = rows.get(fact.description);
    if (row === undefined) {
      rows.set(fact.description, { names: [fact.name], description: fact.description, targets: [fact.target], value: fact.value, holds: fact.holds });
    } else {
      row.names.push(fact.name);
      row.targets.push(fact.target);
      row.holds &&= fact.holds;
    }
  }
  return [...rows.values()];
};

/**
 * Shows, next to the chart, the stylized facts the preset's data is measured to hold for the result's
 * profile and engine (GET /v1/presets/{preset}/fidelity?engine_version=): what a domain expert would check, its target and the
 * value measured on the service's fixed-seed sample.
 */
export const renderFidelityFacts = async (container, result) => {
  const caption = container.querySelector('caption');
  const body = container.querySelector('tbody');
  const note = container.querySelector('.fidelity-note');
  // A model of the account's own has no published facts: the Models page shows its validation sample.
  container.hidden = Boolean(result.model);
  if (result.model) {
    container.dataset.facts = '0';
    return;
  }
  body.replaceChildren();
  caption.textContent = `What ${humanize(result.preset)} data is measured to hold (${humanize(result.profile)})`;
  note.textContent = 'Loading the measured facts…';
  try {
    // The run's own engine: a run of an older engine shown from the history is read against its facts.
    const report = await loadReport(result.preset, result.metadata?.service_version);
    const facts = report.facts.filter((fact) => fact.profile === result.profile);
    const sample = report.sample.find((entry) => entry.profile === result.profile);
    body.replaceChildren(
      ...factRows(facts).map((row) =>
        el(
          'tr',
          { attrs: { 'data-fact': row.names.join(' ') } },
          el('th', { attrs: { scope: 'row' } }, row.description),
          el('td', { className: 'num' }, row.targets.join(' and ')),
          el('td', { className: 'num' }, String(row.value)),
          el('td', {}, row.holds ? 'Yes' : 'No'),
        ),
      ),
    );
    note.textContent =
      sample === undefined
        ? `Engine ${report.service_version}.`
        : `Measured on ${formatInteger(sample.num_interactions)} interactions (seed ${sample.seed}) of engine ${report.service_version}.`;
    container.dataset.facts = String(body.childElementCount);
  } catch {
    note.textContent = 'The measured facts could not be loaded.';
    container.dataset.facts = '0';
  }
};
