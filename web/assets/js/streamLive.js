import { api } from './api.js';
import { byId, el, showText } from './dom.js';
import { explainApiError } from './explainError.js';
import { fieldLabel } from './chartSpec.js';
import { formatDateTime, formatInteger, formatNumber, formatUtcInstant, plural } from './format.js';
import { streamEventHead, streamEventRow, streamField, streamSummary } from './streamEventRow.js';
import { sourceOf, statusBadge } from './streamsList.js';

// One stream, ticking live (docs/console.md "Streams"): its events read with EventSource from
// GET /v1/streams/{id}/events (the session cookie authenticates it; EventSource resumes by itself with
// Last-Event-ID after a lost connection), drawn on a moving chart and listed newest first, the late and
// duplicated ones marked in words, the counts rising until `event: end` says how it ended.

/** Rows of the table: the latest envelopes, newest first. */
const TABLE_ROWS = 50;
const MARKS_TEXT = 'Small filled dots are on time, rings are late, large rings are duplicates.';
// What the status says beside a running stream's badge.
const CONNECTING = 'Connecting…';
const WAITING = 'Waiting for the first event.';
const LIVE = 'Live: each event arrives when it is due.';

export const setUpStreamLive = ({ catalogOf, onEnded }) => {
  const card = byId('stream-live');
  const title = byId('stream-live-title');
  const statusCell = byId('stream-status');
  const deliveredCell = byId('stream-delivered');
  const progress = byId('stream-progress');
  const lateCell = byId('stream-late');
  const duplicatesCell = byId('stream-duplicates');
  const clockCell = byId('stream-clock');
  const announcer = byId('stream-announce');
  const problem = byId('stream-live-error');
  const cancelButton = byId('stream-cancel');
  const curl = byId('stream-curl');
  const curlCopied = byId('stream-curl-copied');
  const chartBox = byId('stream-chart');
  const caption = byId('stream-chart-caption');
  const head = byId('stream-events-head');
  const body = byId('stream-events-body');
  const secretBox = byId('stream-secret');
  const secretValue = byId('stream-secret-value');
  const secretCopied = byId('stream-secret-copied');

  let view = null;
  // A new webhook stream's secret, kept in this page's memory only until "I have saved it" (like a new key).
  let secret = null;

  const say = (text) => {
    // Counts are announced at milestones, never per event: a screen reader would hear nothing else.
    announcer.textContent = text;
  };

  const showStatus = (stream, note = '') => {
    if (view !== null) {
      view.note = note;
    }
    card.dataset.status = stream.status;
    statusCell.replaceChildren(statusBadge(stream.status), note === '' ? '' : ` ${note}`);
    cancelButton.hidden = stream.status !== 'running';
  };

  const flush = (own) => {
    own.frame = 0;
    const { counts, stream } = own;
    const total = stream.num_interactions;
    deliveredCell.textContent = `${formatInteger(counts.records)} of ${formatInteger(total)} records`;
    progress.max = total;
    progress.value = Math.min(counts.records, total);
    lateCell.textContent = counts.records === 0 ? '0' : `${formatInteger(counts.late)} (${formatNumber((counts.late / counts.records) * 100)}% of records)`;
    duplicatesCell.textContent = formatInteger(counts.duplicates);
    clockCell.textContent = own.clock === null ? 'Waiting for the first event' : formatUtcInstant(own.clock);
    Object.assign(card.dataset, { records: String(counts.records), late: String(counts.late), duplicates: String(counts.duplicates), position: String(counts.position) });
    if (!own.ended && own.stream.status === 'running' && counts.position > 0 && (own.note === WAITING || own.note === CONNECTING)) {
      showStatus(own.stream, LIVE);
    }
    if (own.pending.length > 0) {
      if (!own.listed) {
        // The first events replace the "waiting" row.
        own.listed = true;
        body.replaceChildren();
      }
      for (const envelope of own.pending) {
        body.prepend(streamEventRow(envelope, own.field));
      }
      own.pending = [];
      while (body.childElementCount > TABLE_ROWS) {
        body.lastElementChild.remove();
      }
    }
    own.chart.redraw();
    caption.textContent =
      `The latest ${plural(Math.min(counts.position, own.chartWindow), 'event')} at their event times (UTC), ${fieldLabel(own.field ?? 'value')} up the side. ` +
      `${MARKS_TEXT} The dashed line is the stream's clock, the latest delivery time: a late event lands behind it.`;
    const quarter = Math.floor((counts.records * 4) / total);
    if (quarter > own.announced && quarter < 4 && !own.ended) {
      own.announced = quarter;
      say(`${formatInteger(counts.records)} of ${formatInteger(total)} records delivered.`);
    }
  };

  const schedule = (own) => {
    if (own.frame === 0) {
      own.frame = requestAnimationFrame(() => flush(own));
    }
  };

  const receive = (own, envelope) => {
    const { counts } = own;
    // EventSource resumes after the last id it saw; a position seen already is never counted twice.
    if (envelope.position <= counts.position) {
      return;
    }
    counts.position = envelope.position;
    if (envelope.duplicate) {
      counts.duplicates += 1;
    } else {
      counts.records += 1;
      if (envelope.delay_ms > 0) {
        counts.late += 1;
      }
    }
    own.clock = Math.max(own.clock ?? -Infinity, Date.parse(envelope.record.event_time) + envelope.delay_ms);
    own.pending.push(envelope);
    if (own.pending.length > TABLE_ROWS) {
      own.pending.shift();
    }
    own.chart.add(envelope);
    schedule(own);
  };

  const finish = (own, ended) => {
    own.ended = true;
    own.source.close();
    cancelAnimationFrame(own.frame);
    flush(own);
    own.stream = ended;
    // The end as read from the events (data-status is the stream's, known before its events are read).
    card.dataset.end = ended.status;
    const { counts } = own;
    showStatus(
      ended,
      ended.status === 'completed'
        ? `at ${formatDateTime(ended.finished_at)}: every record delivered.`
        : ended.status === 'cancelled'
          ? 'The events delivered before it ended are listed below.'
          : `${ended.last_error === null ? '' : `${ended.last_error.message} `}What was never delivered is given back.`,
    );
    say(`Stream ${ended.status}: ${formatInteger(counts.records)} of ${formatInteger(ended.num_interactions)} records delivered, ${plural(counts.duplicates, 'duplicate')}, ${formatInteger(counts.late)} late.`);
    onEnded(ended);
  };

  /** Why the events stopped for good (EventSource says nothing of the answer): the stream tells. */
  const lost = async (own) => {
    try {
      const stream = await api(`/v1/streams/${own.stream.id}`);
      showText(problem, `The events could not be read (the stream is ${stream.status}). Reload the page to try again.`);
    } catch (error) {
      showText(problem, error.status === 404 ? 'This stream is not one of yours, or its events are no longer kept (7 days after it ended).' : explainApiError(error));
    }
  };

  const listen = (own) => {
    const source = new EventSource(own.stream.events_url);
    own.source = source;
    source.addEventListener('message', (event) => {
      if (view === own) {
        receive(own, JSON.parse(event.data));
      }
    });
    source.addEventListener('end', (event) => {
      if (view === own) {
        finish(own, JSON.parse(event.data));
      }
    });
    source.addEventListener('open', () => {
      if (view === own && !own.ended && own.stream.status === 'running') {
        showStatus(own.stream, own.counts.position === 0 ? WAITING : LIVE);
      }
    });
    source.addEventListener('error', () => {
      if (view !== own || own.ended) {
        return;
      }
      if (source.readyState === EventSource.CLOSED) {
        void lost(own);
      } else {
        showStatus(own.stream, 'Reconnecting: the events go on from the last one received.');
      }
    });
  };

  const close = () => {
    if (view !== null) {
      view.source?.close();
      cancelAnimationFrame(view.frame);
      view.chart?.destroy();
      view = null;
    }
    card.hidden = true;
  };

  const showSecret = (id) => {
    const shown = secret !== null && secret.id === id;
    secretBox.hidden = !shown;
    secretValue.value = shown ? secret.value : '';
    secretCopied.textContent = '';
  };

  /** Opens a stream by its id: its facts, its chart and table, and its events as they come. */
  const open = async (id, { focus = false } = {}) => {
    if (view !== null && view.stream.id === id) {
      return;
    }
    close();
    const own = {
      stream: null,
      counts: { records: 0, duplicates: 0, late: 0, position: 0 },
      pending: [],
      listed: false,
      frame: 0,
      clock: null,
      announced: 0,
      ended: false,
      chart: null,
      field: null,
      chartWindow: 0,
      source: null,
      note: '',
    };
    view = own;
    card.hidden = false;
    delete card.dataset.end;
    showText(problem, '');
    title.textContent = 'Stream';
    body.replaceChildren();
    head.replaceChildren();
    caption.textContent = '';
    curl.textContent = '';
    for (const cell of [statusCell, deliveredCell, lateCell, duplicatesCell, clockCell]) {
      cell.textContent = '…';
    }
    showSecret(id);
    let stream;
    try {
      stream = await api(`/v1/streams/${encodeURIComponent(id)}`);
    } catch (error) {
      if (view === own) {
        title.textContent = 'Stream not found';
        showText(problem, error.status === 404 ? 'No stream of yours has this id: it may belong to another account, or the link is wrong.' : explainApiError(error));
      }
      return;
    }
    if (view !== own) {
      return;
    }
    own.stream = stream;
    title.textContent = `Stream of ${sourceOf(stream)}`;
    card.dataset.streamId = stream.id;
    if (focus) {
      title.focus();
    }
    byId('stream-summary').textContent = streamSummary(stream);
    curl.textContent = `curl -N -H "Authorization: Bearer $BSS_API_KEY" \\\n  "${window.location.origin}${stream.events_url}"`;
    showStatus(stream, stream.status === 'running' ? CONNECTING : 'Reading its events…');
    const entry = catalogOf(stream.request);
    own.field = streamField(entry);
    head.replaceChildren(streamEventHead(own.field));
    body.replaceChildren(el('tr', {}, el('td', { className: 'muted', colSpan: 6 }, 'Waiting for the first event…')));
    const { drawStreamChart, CHART_WINDOW, MARKS } = await import('./streamChart.js');
    if (view !== own) {
      return;
    }
    own.chartWindow = CHART_WINDOW;
    byId('stream-chart-legend').replaceChildren(
      ...Object.values(MARKS).map((mark) => {
        const swatch = el('span', { className: 'swatch swatch-mark', attrs: { 'aria-hidden': 'true' } });
        Object.assign(swatch.style, { borderColor: mark.color, backgroundColor: mark.fill, width: `${mark.size + 2}px`, height: `${mark.size + 2}px` });
        return el('li', {}, swatch, mark.label);
      }),
      el('li', {}, el('span', { className: 'swatch swatch-line swatch-clock', attrs: { 'aria-hidden': 'true' } }), 'The stream’s clock'),
    );
    own.chart = drawStreamChart(chartBox, { field: own.field ?? 'sequence_id', label: own.field === null ? 'Sequence' : fieldLabel(own.field) });
    flush(own);
    listen(own);
  };

  /** A stream cancelled from the list: its view says so until its end arrives. */
  const cancelled = (stream) => {
    if (view !== null && view.stream?.id === stream.id && !view.ended) {
      view.stream = stream;
      showStatus(stream, 'The events delivered before it ended are still coming.');
    }
  };

  cancelButton.addEventListener('click', async () => {
    const own = view;
    if (own === null || own.stream === null || own.ended) {
      return;
    }
    cancelButton.setAttribute('aria-disabled', 'true');
    try {
      cancelled(await api(`/v1/streams/${own.stream.id}`, { method: 'DELETE' }));
      say('Stream cancelled.');
    } catch (error) {
      showText(problem, explainApiError(error));
    } finally {
      cancelButton.removeAttribute('aria-disabled');
    }
  });

  const copy = async (text, status, fallback) => {
    try {
      await navigator.clipboard.writeText(text);
      status.textContent = 'Copied to the clipboard.';
    } catch {
      // No clipboard permission: leave it selected for Ctrl+C.
      fallback();
      status.textContent = 'Selected: press Ctrl+C (⌘C on a Mac) to copy.';
    }
  };
  byId('stream-copy-curl').addEventListener('click', () =>
    copy(curl.textContent, curlCopied, () => {
      const range = document.createRange();
      range.selectNodeContents(curl);
      window.getSelection()?.removeAllRanges();
      window.getSelection()?.addRange(range);
    }),
  );
  byId('stream-secret-copy').addEventListener('click', () =>
    copy(secretValue.value, secretCopied, () => {
      secretValue.focus();
      secretValue.select();
    }),
  );
  byId('stream-secret-done').addEventListener('click', () => {
    // The secret leaves the page as soon as the user says it is saved.
    secret = null;
    showSecret(null);
    title.focus();
  });

  /** A new webhook stream's secret, shown on its page until dismissed. */
  const rememberSecret = (id, value) => {
    secret = value === null ? null : { id, value };
  };

  return { open, close, cancelled, rememberSecret };
};
