import { api } from './api.js';
import { el } from './dom.js';
import { formatInteger, humanize } from './format.js';

// One request per preset per page: the facts only change with the service's engine.
const reports = new Map();

const loadReport = (preset) => {
  if (!reports.has(preset)) {
    // A failed load is forgotten, so the next result tries again.
    reports.set(
      preset,
      api(`/v1/presets/${encodeURIComponent(preset)}/fidelity`).catch((error) => {
        reports.delete(preset);
        throw error;
      }),
    );
  }
  return reports.get(preset);
};

/**
 * Shows, next to the chart, the stylized facts the preset's data is measured to hold for the result's
 * profile (GET /v1/presets/{preset}/fidelity): what a domain expert would check, its target and the
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
    const report = await loadReport(result.preset);
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
