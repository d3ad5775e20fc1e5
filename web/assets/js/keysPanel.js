import { api } from './api.js';
import { announce, byId, el, showText } from './dom.js';
import { explainApiError } from './explainError.js';
import { formatDateTime } from './format.js';

const NAME_MAX = 100;

const statusCell = (key) =>
  key.is_active
    ? el('td', {}, el('span', { className: 'badge badge-active' }, 'Active'))
    : el('td', {}, el('span', { className: 'badge badge-revoked' }, 'Revoked'), ' ', el('span', { className: 'small muted' }, formatDateTime(key.revoked_at)));

const keyRow = (key, onRevoke) =>
  el(
    'tr',
    {},
    el('th', { attrs: { scope: 'row' } }, key.name),
    el('td', {}, el('code', {}, `${key.key_prefix}…`)),
    el('td', {}, formatDateTime(key.created_at)),
    el('td', {}, key.last_used_at === null ? el('span', { className: 'muted' }, 'Never') : formatDateTime(key.last_used_at)),
    statusCell(key),
    el(
      'td',
      { className: 'actions' },
      key.is_active
        ? el('button', {
            type: 'button',
            className: 'button button-small button-danger-quiet',
            textContent: 'Revoke',
            attrs: { 'aria-label': `Revoke key ${key.name}` },
            onclick: (event) => onRevoke(key, event.currentTarget),
          })
        : null,
    ),
  );

/** The API keys card: list, create (showing the secret once), and revoke behind a confirmation dialog. */
export const setUpKeys = () => {
  const tbody = byId('keys-body');
  const form = byId('key-form');
  const nameInput = byId('key-name');
  const problem = byId('key-error');
  const newKey = byId('new-key');
  const newKeyValue = byId('new-key-value');
  const copied = byId('new-key-copied');
  const dialog = byId('revoke-dialog');

  const load = async () => {
    try {
      const keys = await api('/v1/api-keys');
      tbody.replaceChildren(
        ...(keys.length === 0
          ? [el('tr', {}, el('td', { colSpan: 6, className: 'muted' }, 'No keys yet. Create one to call the API from a program.'))]
          : keys.map((key) => keyRow(key, confirmRevoke))),
      );
    } catch (error) {
      tbody.replaceChildren(el('tr', {}, el('td', { colSpan: 6 }, `The keys could not be loaded. ${explainApiError(error)}`)));
    }
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
      newKeyValue.value = created.key;
      copied.textContent = '';
      newKey.hidden = false;
      newKeyValue.focus();
      newKeyValue.select();
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

  return { load };
};
