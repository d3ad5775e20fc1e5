import { api } from './api.js';
import { byId, el, showText } from './dom.js';
import { explainApiError } from './explainError.js';
import { formatInteger, formatUtcDate, humanize, plural } from './format.js';

const meter = (id, title, used, limit, remaining, unit) => {
  const labelId = `${id}-label`;
  const share = limit > 0 ? used / limit : 1;
  return el(
    'div',
    { className: 'meter-block' },
    el(
      'div',
      { className: 'meter-head' },
      el('span', { id: labelId, className: 'meter-title' }, title),
      el('span', { className: 'meter-figures' }, `${formatInteger(used)} of ${formatInteger(limit)} used`),
    ),
    el('meter', {
      id,
      min: 0,
      max: Math.max(limit, 1),
      value: Math.min(used, limit),
      low: Math.round(limit * 0.75),
      high: Math.round(limit * 0.9),
      optimum: 0,
      attrs: {
        'aria-labelledby': labelId,
        'aria-valuetext': `${formatInteger(used)} of ${formatInteger(limit)} ${unit} used, ${formatInteger(remaining)} remaining`,
      },
    }),
    el(
      'p',
      { className: `meter-remaining${share >= 1 ? ' is-exhausted' : ''}` },
      `${formatInteger(remaining)} remaining`,
    ),
  );
};

/** Renders the usage meters and returns the usage, or null when it could not be read. */
export const loadUsage = async () => {
  const body = byId('usage-body');
  const problem = byId('usage-error');
  body.setAttribute('aria-busy', 'true');
  try {
    const usage = await api('/v1/usage');
    const { plan, period } = usage;
    body.replaceChildren(
      meter('usage-requests', 'Simulation requests', usage.usage.requests, plan.monthly_requests, usage.remaining.requests, 'requests'),
      meter(
        'usage-interactions',
        'Interactions generated',
        usage.usage.interactions,
        plan.monthly_interactions,
        usage.remaining.interactions,
        'interactions',
      ),
      el('p', { className: 'small', id: 'usage-reset' }, `Resets on ${formatUtcDate(period.end)}.`),
      el(
        'p',
        { className: 'small muted' },
        `${humanize(plan.name)} plan: ${plural(plan.requests_per_minute, 'request')} a minute, up to ${plural(
          plan.max_interactions_per_request,
          'interaction',
        )} per run, ${plural(plan.max_concurrent_simulations, 'simulation')} at a time.`,
      ),
    );
    showText(problem, '');
    return usage;
  } catch (error) {
    body.replaceChildren();
    showText(problem, `Usage could not be loaded. ${explainApiError(error)}`);
    return null;
  } finally {
    body.removeAttribute('aria-busy');
  }
};
