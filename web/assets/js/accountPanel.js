import { api } from './api.js';
import { byId } from './dom.js';
import { explainApiError } from './explainError.js';
import { formatDateTime, humanize } from './format.js';

const PROVIDER_NAMES = { github: 'GitHub', google: 'Google' };

const providerName = (id) => (Object.hasOwn(PROVIDER_NAMES, id) ? PROVIDER_NAMES[id] : humanize(id));

/** Fills the account card; rejects (after the 401 redirect) when there is no session. */
export const loadAccount = async () => {
  const account = await api('/v1/account');
  byId('account-email').textContent = account.email;
  byId('account-name').textContent = account.display_name || '—';
  byId('account-plan').textContent = humanize(account.plan);
  const providers = Array.isArray(account.authentication_methods) ? account.authentication_methods : [];
  byId('account-providers').textContent = providers.length === 0 ? '—' : providers.map(providerName).join(', ');
  byId('account-created').textContent = formatDateTime(account.created_at) || '—';
  return account;
};

export const setUpSignOut = (showNotice) => {
  const button = byId('sign-out');
  button.hidden = false;
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      await api('/v1/auth/logout', { method: 'POST' });
      window.location.assign('/');
    } catch (error) {
      button.disabled = false;
      showNotice(`Sign-out failed. ${explainApiError(error)}`);
    }
  });
};
