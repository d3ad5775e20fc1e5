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
 * Shows, next to the chart, the stylized facts the preset's data is measured to hold for the result's
 * profile and engine (GET /v1/presets/{preset}/fidelity?engine_version=): what a domain expert would check, its target and the
 * value measured on the service's fixed-seed sample.
 */
export const renderFidelityFacts = async (container, result) => {
  const caption = container.querySelector('caption');
  const body = container.querySelector('tbody');
  const note = container.querySelector('.fidelity-note');
  container.hidden = false;
  body.replaceChildren();
  caption.textContent = `What ${humanize(result.preset)} data is measured to hold (${humanize(result.profile)})`;
  note.textContent = 'Loading the measured facts…';
  try {
    // The run's own engine: a run of an older engine shown from the history is read against its facts.
    const report = await loadReport(result.preset, result.metadata?.service_version);
    const facts = report.facts.filter((fact) => fact.profile === result.profile);
    const sample = report.sample.find((entry) => entry.profile === result.profile);
    body.replaceChildren(
      ...facts.map((fact) =>
        el(
          'tr',
          { attrs: { 'data-fact': fact.name } },
          el('th', { attrs: { scope: 'row' } }, fact.description),
          el('td', { className: 'num' }, fact.target),
          el('td', { className: 'num' }, String(fact.value)),
          el('td', {}, fact.holds ? 'Yes' : 'No'),
        ),
      ),
    );
    note.textContent =
      sample === undefined
        ? `Engine ${report.service_version}.`
        : `Measured on ${formatInteger(sample.num_interactions)} interactions (seed ${sample.seed}) of engine ${report.service_version}.`;
    container.dataset.facts = String(facts.length);
  } catch {
    note.textContent = 'The measured facts could not be loaded.';
    container.dataset.facts = '0';
  }
};
