import { api } from './api.js';
import { byId, el, showText } from './dom.js';
import { explainApiError } from './explainError.js';
import { formatInteger, humanize, plural } from './format.js';

// A shell word as typed: quoted only when it has to be.
const shellWord = (text) => (/^[A-Za-z0-9@._+-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`);

const LIMITS = [
  { field: 'requests_per_minute', label: 'Requests a minute' },
  { field: 'monthly_requests', label: 'Requests a month' },
  { field: 'monthly_interactions', label: 'Interactions a month' },
  { field: 'max_interactions_per_request', label: 'Interactions per run' },
  { field: 'max_concurrent_simulations', label: 'Runs at the same time' },
  { field: 'max_concurrent_streams', label: 'Live streams at the same time' },
  { field: 'max_active_api_keys', label: 'Active API keys' },
];

/**
 * The plans card: every plan's limits (GET /v1/plans) side by side, the caller's own marked, and what to
 * do to change plan. A self-hosted service has no billing: its operator sets plans with the admin CLI,
 * so that is what the card says, with the command filled in.
 */
export const loadPlans = async (account) => {
  const problem = byId('plans-error');
  try {
    const plans = await api('/v1/plans');
    const own = plans.findIndex((plan) => plan.name === account.plan);
    byId('plans-head').replaceChildren(
      el(
        'tr',
        {},
        el('th', { attrs: { scope: 'col' } }, 'Limit'),
        ...plans.map((plan, index) =>
          el(
            'th',
            { className: index === own ? 'num is-own-plan' : 'num', attrs: { scope: 'col', 'data-plan': plan.name } },
            humanize(plan.name),
            index === own ? el('span', { className: 'own-plan-tag' }, ' (your plan)') : null,
          ),
        ),
      ),
    );
    byId('plans-body').replaceChildren(
      ...LIMITS.map((limit) =>
        el(
          'tr',
          {},
          el('th', { attrs: { scope: 'row' } }, limit.label),
          // A limit an older service does not list shows as a dash, not as "NaN".
          ...plans.map((plan, index) => el('td', { className: index === own ? 'num is-own-plan' : 'num' }, typeof plan[limit.field] === 'number' ? formatInteger(plan[limit.field]) : '—')),
        ),
      ),
    );
    const mine = plans[own];
    byId('account-limits').textContent =
      mine === undefined
        ? '—'
        : `${formatInteger(mine.max_interactions_per_request)} interactions per run, ${formatInteger(mine.requests_per_minute)} requests a minute, ${formatInteger(mine.max_active_api_keys)} active API keys, ${plural(mine.max_concurrent_streams ?? 1, 'live stream')} at a time`;
    const larger = own >= 0 ? plans[own + 1] : plans.find((plan) => plan.name !== account.plan);
    byId('plans-intro').textContent =
      own < 0
        ? `Your plan, ${humanize(account.plan)}, is not listed; these are the plans of this service.`
        : larger === undefined
          ? `You are on ${humanize(account.plan)}, the largest plan of this service.`
          : `You are on ${humanize(account.plan)}. ${humanize(larger.name)} allows ${formatInteger(larger.monthly_interactions)} interactions a month, up to ${formatInteger(larger.max_interactions_per_request)} per run.`;
    byId('plans-command').textContent = `npm run --silent admin -- set-plan --email ${shellWord(account.email)} --plan ${shellWord(larger?.name ?? account.plan)}`;
    showText(problem, '');
  } catch (error) {
    byId('plans-body').replaceChildren();
    showText(problem, `The plans could not be loaded. ${explainApiError(error)}`);
  }
};
