import { api } from './api.js';
import { announce, byId, el, showText } from './dom.js';
import { explainApiError } from './explainError.js';
import { alignCounterfactual, counterfactualRequest, scenarioOf } from './counterfactual.js';

/**
 * "Run the counterfactual" under a scenario run's chart: the same inputs without the scenario, run once
 * and overlaid on the chart (then shown or hidden without running again), and the figure's legend for
 * the event windows and the two series.
 */
export const setUpCounterfactual = ({ redraw, onFinished }) => {
  const box = byId('sim-scenario');
  const button = byId('sim-counterfactual');
  const status = byId('sim-counterfactual-status');
  const problem = byId('sim-counterfactual-error');
  const legend = byId('sim-scenario-legend');

  let result = null;
  let aligned = null;
  let visible = false;
  let running = false;

  const label = () => {
    button.textContent = running ? 'Running the counterfactual…' : aligned === null ? 'Run the counterfactual' : visible ? 'Hide the counterfactual' : 'Show the counterfactual';
  };

  /** A new result: no counterfactual yet; the box only for a run with a scenario. */
  const setResult = (next) => {
    result = next;
    aligned = null;
    visible = false;
    box.hidden = scenarioOf(next) === null;
    status.textContent = '';
    showText(problem, '');
    label();
  };

  const swatch = (className, color) => {
    const node = el('span', { className: `swatch ${className}`, attrs: { 'aria-hidden': 'true' } });
    if (color !== undefined) {
      node.style.backgroundColor = color;
    }
    return node;
  };

  /** The figure's legend: each event type's hatch colour, and the two series when both are drawn. */
  const setLegend = (events) => {
    legend.replaceChildren(
      ...events.map(({ type, color }) => el('li', {}, swatch('swatch-event', color), `${type} (event window)`)),
      ...(visible && aligned !== null
        ? [el('li', {}, swatch('swatch-line'), 'With scenario (solid)'), el('li', {}, swatch('swatch-line swatch-counterfactual'), 'Counterfactual, without the scenario (dashed grey)')]
        : []),
    );
    legend.hidden = legend.childElementCount === 0;
  };

  button.addEventListener('click', async () => {
    if (running || result === null) {
      return;
    }
    if (aligned !== null) {
      visible = !visible;
      label();
      await redraw();
      announce(visible ? 'The counterfactual is drawn again.' : 'The counterfactual is hidden.');
      return;
    }
    const base = result;
    running = true;
    button.setAttribute('aria-disabled', 'true');
    label();
    showText(problem, '');
    try {
      const request = counterfactualRequest(base);
      const other = await api('/v1/simulations', { method: 'POST', body: request });
      if (result !== base) {
        return;
      }
      aligned = alignCounterfactual(base.data, other.data);
      visible = true;
      status.textContent = `Counterfactual: preset ${request.preset}, profile ${request.profile}, seed ${request.seed}, engine ${request.engine_version}, no scenario.`;
      running = false;
      label();
      await redraw();
      announce('The counterfactual is drawn under the run, dashed.');
    } catch (error) {
      showText(problem, explainApiError(error));
    } finally {
      running = false;
      button.removeAttribute('aria-disabled');
      label();
      onFinished();
    }
  });

  return { setResult, setLegend, shown: () => (visible ? aligned : null) };
};
