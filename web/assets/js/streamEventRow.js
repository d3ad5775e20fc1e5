import { chartSpecFor, fieldLabel } from './chartSpec.js';
import { el } from './dom.js';
import { formatDateTime, formatInteger, formatNumber, formatUtcInstant } from './format.js';

// A stream's envelopes as rows of the Streams page's table (docs/console.md "Streams"), and the words around
// them: how each was delivered (never by colour alone), the field they follow, the stream in a sentence.

const IDS = new Set(['sequence_id', 'interaction_id']);

/** A delay in words: "850 ms", "3.2 s", "4 min 5 s", "2 h 10 min". */
const formatDelay = (ms) => {
  if (ms < 1000) {
    return `${formatInteger(ms)} ms`;
  }
  const seconds = ms / 1000;
  if (seconds < 60) {
    return `${formatNumber(Math.round(seconds * 10) / 10)} s`;
  }
  const whole = Math.round(seconds);
  if (whole < 3600) {
    return `${Math.floor(whole / 60)} min ${whole % 60} s`;
  }
  return `${Math.floor(whole / 3600)} h ${Math.floor((whole % 3600) / 60)} min`;
};

/** How an envelope was delivered, in words: the table never relies on colour alone. */
const deliveryCell = (envelope) => {
  if (envelope.duplicate) {
    return el('td', { className: 'delivery' }, el('span', { className: 'badge badge-duplicate' }, 'Duplicate'), envelope.delay_ms > 0 ? `, late by ${formatDelay(envelope.delay_ms)}` : '');
  }
  if (envelope.delay_ms > 0) {
    return el('td', { className: 'delivery' }, el('span', { className: 'badge badge-late' }, 'Late'), ` by ${formatDelay(envelope.delay_ms)}`);
  }
  return el('td', { className: 'delivery' }, 'On time');
};

/** The field the chart and the table follow: the preset's first charted one, else the first number. */
export const streamField = (entry) => {
  const spec = chartSpecFor(entry, []);
  const first = spec?.panels[0]?.fields[0];
  if (first !== undefined) {
    return first;
  }
  return (entry?.record_fields ?? []).find((field) => (field.type === 'number' || field.type === 'integer') && !IDS.has(field.name))?.name ?? null;
};

/** The table's head: how it was delivered comes second, so on a phone it is in view without scrolling. */
export const streamEventHead = (field) =>
  el(
    'tr',
    {},
    ...['Position', 'Delivery', 'Event time', 'Sequence', 'State', field === null ? 'Value' : fieldLabel(field)].map((name, index) =>
      el('th', { className: [0, 3, 5].includes(index) ? 'num' : '', attrs: { scope: 'col' } }, name),
    ),
  );

/** One envelope as a row, carrying its position, delay and duplicate as data for tests and tools. */
export const streamEventRow = (envelope, field) => {
  const { record } = envelope;
  const value = field === null ? '' : record[field];
  return el(
    'tr',
    {
      className: [envelope.delay_ms > 0 ? 'is-late' : '', envelope.duplicate ? 'is-duplicate' : ''].join(' ').trim(),
      attrs: { 'data-position': envelope.position, 'data-delay-ms': envelope.delay_ms, 'data-duplicate': envelope.duplicate },
    },
    el('td', { className: 'num' }, formatInteger(envelope.position)),
    deliveryCell(envelope),
    el('td', {}, formatUtcInstant(Date.parse(record.event_time))),
    el('td', { className: 'num' }, String(record.sequence_id)),
    el('td', {}, String(record.state ?? '')),
    el('td', { className: 'num' }, typeof value === 'number' ? formatNumber(value) : String(value ?? '')),
  );
};

/** The stream's inputs in one sentence. */
export const streamSummary = (stream) => {
  const request = stream.request ?? {};
  const disorder = request.disorder ?? {};
  const parts = [
    `Seed ${request.seed}, population ${formatInteger(request.population ?? 100)}, speed ${formatNumber(stream.speed)}× (event-time seconds a second), events from ${formatUtcInstant(Date.parse(stream.start_time))}.`,
  ];
  if ((disorder.late_share ?? 0) > 0 || (disorder.duplicate_share ?? 0) > 0) {
    parts.push(
      `Disorder: ${formatNumber((disorder.late_share ?? 0) * 100)}% late by up to ${formatInteger(disorder.max_delay_s ?? 60)} s, ${formatNumber((disorder.duplicate_share ?? 0) * 100)}% duplicated.`,
    );
  }
  parts.push(stream.sink?.type === 'webhook' ? `Also POSTed to ${stream.sink.url}.` : 'Read here and with curl.');
  parts.push(`Created ${formatDateTime(stream.created_at)}.`);
  return parts.join(' ');
};
