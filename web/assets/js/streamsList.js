import { api } from './api.js';
import { announce, byId, el, showText } from './dom.js';
import { explainApiError } from './explainError.js';
import { formatDateTime, formatInteger, formatNumber, humanize } from './format.js';

// The account's streams (GET /v1/streams, newest first, paged like the history), each with Open and, while
// it runs, Cancel (DELETE /v1/streams/{id}).

const PAGE = 20;
const STATUS_WORDS = { running: 'Running', completed: 'Completed', cancelled: 'Cancelled', failed: 'Failed' };

/** What a stream streams, as a person reads it. */
export const sourceOf = (stream) => {
  const request = stream.request ?? {};
  // A preset stream echoes `model: null`; a model stream `model: {name, version, digest}` (docs/streams.md).
  const { model } = request;
  const name = model == null ? humanize(String(request.preset ?? 'stream')) : `model ${typeof model === 'string' ? model : `${model.name}@${model.version}`}`;
  return `${name} (${humanize(String(request.profile ?? ''))})`;
};

/** Delivered against the records asked for: duplicates are events too, so a disordered stream can end above. */
const deliveredOf = (stream) =>
  `${formatInteger(stream.delivered)} of ${formatInteger(stream.num_interactions)}${stream.delivered > stream.num_interactions ? ' (with duplicates)' : ''}`;

export const statusBadge = (status) => el('span', { className: `badge badge-stream-${status}` }, STATUS_WORDS[status] ?? status);

/** The list card; Open is a link the console's router follows, so the address names the stream. */
export const setUpStreamsList = ({ onCancelled }) => {
  const tbody = byId('streams-body');
  const problem = byId('streams-list-error');
  const older = byId('streams-older');
  let shown = [];
  let nextCursor = null;

  const cancel = async (stream, button) => {
    button.setAttribute('aria-disabled', 'true');
    showText(problem, '');
    try {
      const ended = await api(`/v1/streams/${stream.id}`, { method: 'DELETE' });
      announce(`Stream of ${sourceOf(ended)} ${ended.status === 'cancelled' ? 'cancelled' : `already ${ended.status}`}.`);
      onCancelled(ended);
      await load();
    } catch (error) {
      showText(problem, explainApiError(error));
      button.removeAttribute('aria-disabled');
    }
  };

  const row = (stream) => {
    const what = `stream of ${sourceOf(stream)}, created ${formatDateTime(stream.created_at)}`;
    const openButton = el('a', { className: 'button button-small', href: `/account/streams/${stream.id}`, attrs: { 'data-page': 'streams', 'aria-label': `Open the ${what}` } }, 'Open');
    const cancelButton =
      stream.status === 'running'
        ? el('button', { type: 'button', className: 'button button-small button-danger-quiet', attrs: { 'aria-label': `Cancel the ${what}` } }, 'Cancel')
        : null;
    cancelButton?.addEventListener('click', () => cancel(stream, cancelButton));
    return el(
      'tr',
      { attrs: { 'data-stream-id': stream.id, 'data-status': stream.status } },
      el('th', { attrs: { scope: 'row' } }, formatDateTime(stream.created_at)),
      el('td', {}, sourceOf(stream)),
      el('td', {}, statusBadge(stream.status)),
      el('td', { className: 'num' }, deliveredOf(stream)),
      el('td', { className: 'num' }, `${formatNumber(stream.speed)}×`),
      el('td', {}, stream.sink?.type === 'webhook' ? `Webhook ${new URL(String(stream.sink.url)).host}` : 'Events (SSE)'),
      el('td', {}, el('div', { className: 'row-actions row-actions-two' }, openButton, cancelButton)),
    );
  };

  const render = () => {
    tbody.replaceChildren(...(shown.length === 0 ? [el('tr', {}, el('td', { className: 'muted', colSpan: 7 }, 'No streams yet: start one above.'))] : shown.map(row)));
    older.hidden = nextCursor === null;
  };

  /** The newest page again (after a stream started, was cancelled or ended). */
  const load = async () => {
    try {
      const page = await api(`/v1/streams?limit=${PAGE}`);
      shown = page.data;
      nextCursor = page.next_cursor;
      showText(problem, '');
      render();
    } catch (error) {
      showText(problem, `Your streams could not be loaded. ${explainApiError(error)}`);
    }
  };

  older.addEventListener('click', async () => {
    if (nextCursor === null) {
      return;
    }
    try {
      const page = await api(`/v1/streams?limit=${PAGE}&cursor=${encodeURIComponent(nextCursor)}`);
      shown = [...shown, ...page.data];
      nextCursor = page.next_cursor;
      render();
    } catch (error) {
      showText(problem, explainApiError(error));
    }
  });

  return { load };
};
