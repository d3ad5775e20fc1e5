import { api } from './api.js';
import { announce, byId, el, showText } from './dom.js';
import { explainApiError } from './explainError.js';
import { formatDateTime, formatInteger } from './format.js';
import { setUpGettingStarted } from './gettingStarted.js';

const NAME_MAX = 100;

const statusCell = (key) => {
  if (!key.is_active) {
    return el('td', {}, el('span', { className: 'badge badge-revoked' }, 'Revoked'), ' ', el('span', { className: 'small muted' }, formatDateTime(key.revoked_at)));
  }
  // A rolled key in its grace period: still working, and saying until when.
  return key.expires_at === null
    ? el('td', {}, el('span', { className: 'badge badge-active' }, 'Active'))
    : el('td', {}, el('span', { className: 'badge badge-active' }, 'Active'), ' ', el('span', { className: 'small muted' }, `until ${formatDateTime(key.expires_at)}`));
};

const actionButton = (label, className, name, onClick) =>
  el('button', {
    type: 'button',
    className: `button button-small ${className}`,
    textContent: label,
    attrs: { 'aria-label': `${label} key ${name}` },
    onclick: (event) => onClick(event.currentTarget),
  });

// This month's runs of a key (GET /v1/usage/daily): every run, and the interactions counted against the plan.
const usageCells = (usage) =>
  usage === undefined
    ? [el('td', { className: 'num muted' }, '0'), el('td', { className: 'num muted' }, '0')]
    : [el('td', { className: 'num' }, formatInteger(usage.runs)), el('td', { className: 'num' }, formatInteger(usage.interactions))];

const keyRow = (key, usage, onRevoke, onRoll) =>
  el(
    'tr',
    { attrs: { 'data-key-id': key.id } },
    el('th', { attrs: { scope: 'row' } }, key.name),
    el('td', {}, el('code', {}, `${key.key_prefix}…`)),
    el('td', {}, formatDateTime(key.created_at)),
    el('td', {}, key.last_used_at === null ? el('span', { className: 'muted' }, 'Never') : formatDateTime(key.last_used_at)),
    ...usageCells(usage),
    statusCell(key),
    el(
      'td',
      { className: 'actions' },
      // A key already rolled cannot be rolled again; it can still be revoked before its grace period ends.
      key.is_active && key.expires_at === null ? actionButton('Roll', 'button-quiet', key.name, (opener) => onRoll(key, opener)) : null,
      key.is_active && key.expires_at === null ? ' ' : null,
      key.is_active ? actionButton('Revoke', 'button-danger-quiet', key.name, (opener) => onRevoke(key, opener)) : null,
    ),
  );

/**
 * The API keys card: list, create (showing the secret once), roll (a new key of the same name, the old one
 * working for a grace period) and revoke, each change behind a confirmation dialog.
 */
export const setUpKeys = ({ onKeys = () => {} } = {}) => {
  const tbody = byId('keys-body');
  const form = byId('key-form');
  const nameInput = byId('key-name');
  const problem = byId('key-error');
  const newKey = byId('new-key');
  const newKeyValue = byId('new-key-value');
  const copied = byId('new-key-copied');
  const dialog = byId('revoke-dialog');
  const rollDialog = byId('roll-dialog');
  const previous = byId('new-key-previous');
  const gettingStarted = setUpGettingStarted();

  let keys = null;
  let usageByKey = new Map();
  let perRun = 1000;

  const render = () => {
    if (keys === null) {
      return;
    }
    tbody.replaceChildren(
      ...(keys.length === 0
        ? [el('tr', {}, el('td', { colSpan: 8, className: 'muted' }, 'No keys yet. Create one to call the API from a program.'))]
        : keys.map((key) => keyRow(key, usageByKey.get(key.id), confirmRevoke, confirmRoll))),
    );
  };

  /** Lists the keys; resolves to them (or null when they could not be read). */
  const load = async () => {
    try {
      keys = await api('/v1/api-keys');
      render();
      onKeys(keys);
      return keys;
    } catch (error) {
      keys = null;
      tbody.replaceChildren(el('tr', {}, el('td', { colSpan: 8 }, `The keys could not be loaded. ${explainApiError(error)}`)));
      return null;
    }
  };

  /** This month's usage per credential, from GET /v1/usage/daily. */
  const setUsage = (credentials) => {
    usageByKey = new Map(credentials.filter((entry) => entry.credential.type === 'api_key').map((entry) => [entry.credential.api_key_id, entry]));
    render();
  };

  /** The snippets ask for at most this many interactions, so they run on the caller's plan. */
  const setPlanLimit = (limit) => {
    perRun = Math.min(1000, limit);
  };

  let creating = false;
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (creating) {
      return;
    }
    const name = nameInput.value.trim();
    if (name.length === 0 || name.length > NAME_MAX) {
      nameInput.setAttribute('aria-invalid', 'true');
      showText(problem, `Give the key a name of 1 to ${NAME_MAX} characters.`);
      nameInput.focus();
      return;
    }
    nameInput.removeAttribute('aria-invalid');
    showText(problem, '');
    const submit = form.querySelector('button[type="submit"]');
    // aria-disabled rather than disabled: a disabled button drops keyboard focus to the page's start.
    creating = true;
    submit.setAttribute('aria-disabled', 'true');
    try {
      const created = await api('/v1/api-keys', { method: 'POST', body: { name } });
      showNewKey(created.key, '');
      form.reset();
      announce(`Key ${created.name} created. Copy it now: it will not be shown again.`);
      await load();
    } catch (error) {
      showText(problem, explainApiError(error));
    } finally {
      creating = false;
      submit.removeAttribute('aria-disabled');
    }
  });

  // The secret goes into the one place that shows it once; a roll adds when the old key stops working.
  const showNewKey = (secret, previousNote) => {
    newKeyValue.value = secret;
    copied.textContent = '';
    showText(previous, previousNote);
    gettingStarted.show(secret, perRun);
    newKey.hidden = false;
    newKeyValue.focus();
    newKeyValue.select();
  };

  byId('new-key-copy').addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(newKeyValue.value);
      copied.textContent = 'Copied to the clipboard.';
    } catch {
      // No clipboard permission (an insecure origin, a locked-down browser): leave it selected for Ctrl+C.
      newKeyValue.focus();
      newKeyValue.select();
      copied.textContent = 'Selected: press Ctrl+C (⌘C on a Mac) to copy.';
    }
  });

  byId('new-key-done').addEventListener('click', () => {
    // The secret leaves the page as soon as the user says it is saved.
    newKeyValue.value = '';
    copied.textContent = '';
    showText(previous, '');
    gettingStarted.clear();
    newKey.hidden = true;
    nameInput.focus();
  });

  let pending = null;
  const confirmRevoke = (key, opener) => {
    pending = { key, opener };
    byId('revoke-title').textContent = `Revoke the key “${key.name}”?`;
    byId('revoke-description').textContent =
      `Programs using ${key.key_prefix}… will be refused from the next request on. A revoked key cannot be restored.`;
    byId('revoke-confirm').disabled = false;
    dialog.showModal();
  };

  byId('revoke-cancel').addEventListener('click', () => dialog.close('cancel'));
  dialog.addEventListener('close', () => {
    // Cancelled (button or Escape): focus goes back to the button that opened the dialog.
    if (dialog.returnValue !== 'revoked' && pending !== null) {
      pending.opener.focus();
    }
    dialog.returnValue = '';
    pending = null;
  });

  byId('revoke-confirm').addEventListener('click', async () => {
    if (pending === null) {
      return;
    }
    const { key } = pending;
    byId('revoke-confirm').disabled = true;
    try {
      await api(`/v1/api-keys/${encodeURIComponent(key.id)}`, { method: 'DELETE' });
      dialog.close('revoked');
      showText(problem, '');
      announce(`Key ${key.name} revoked.`);
    } catch (error) {
      dialog.close('revoked');
      showText(problem, explainApiError(error));
    }
    await load();
    byId('keys-title').focus();
  });

  let rolling = null;
  const confirmRoll = (key, opener) => {
    rolling = { key, opener };
    byId('roll-title').textContent = `Roll the key “${key.name}”?`;
    byId('roll-description').textContent =
      `A new key named “${key.name}” is created and shown once. Programs using ${key.key_prefix}… keep working for the grace period you choose, then are refused.`;
    byId('roll-grace').value = '86400';
    byId('roll-confirm').disabled = false;
    rollDialog.showModal();
  };

  byId('roll-cancel').addEventListener('click', () => rollDialog.close('cancel'));
  rollDialog.addEventListener('close', () => {
    if (rollDialog.returnValue !== 'rolled' && rolling !== null) {
      rolling.opener.focus();
    }
    rollDialog.returnValue = '';
    rolling = null;
  });

  byId('roll-confirm').addEventListener('click', async () => {
    if (rolling === null) {
      return;
    }
    const { key } = rolling;
    byId('roll-confirm').disabled = true;
    const expiresIn = Number(byId('roll-grace').value);
    try {
      const rolled = await api(`/v1/api-keys/${encodeURIComponent(key.id)}/roll`, { method: 'POST', body: { expires_in: expiresIn } });
      rollDialog.close('rolled');
      showText(problem, '');
      const note =
        expiresIn === 0
          ? `The previous key ${key.key_prefix}… is revoked.`
          : `The previous key ${key.key_prefix}… keeps working until ${formatDateTime(rolled.previous_key_expires_at)}.`;
      await load();
      showNewKey(rolled.key, note);
      announce(`Key ${rolled.name} rolled. Copy the new key now: it will not be shown again. ${note}`);
    } catch (error) {
      rollDialog.close('rolled');
      showText(problem, explainApiError(error));
      await load();
      byId('keys-title').focus();
    }
  });

  return { load, setUsage, setPlanLimit };
};
