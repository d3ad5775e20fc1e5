import { byId, el } from './dom.js';
import { formatInteger, plural } from './format.js';
import { eventOf } from './scenarioBands.js';

const FIRST_ROWS = 20;
const EVENT_ROWS = 100;
// Records shown before and after each event window, so the change at its edges can be read.
const CONTEXT = 2;

/** Columns in the catalog's order for the run's engine, then anything else the records carry. */
export const columnsOf = (preset, records, engine) => {
  const byEngine = preset?.record_fields_by_engine?.[engine];
  const listed = Array.isArray(byEngine) ? [...byEngine] : (preset?.record_fields ?? []).map((field) => field.name);
  const seen = new Set(listed);
  for (const name of Object.keys(records[0] ?? {})) {
    if (!seen.has(name)) {
      listed.push(name);
      seen.add(name);
    }
  }
  return listed;
};

/** Indexes of the records in event windows and their context, in order, at most EVENT_ROWS. */
const aroundEvents = (records) => {
  const chosen = new Set();
  records.forEach((record, index) => {
    if (eventOf(record) !== null) {
      for (let near = Math.max(0, index - CONTEXT); near <= Math.min(records.length - 1, index + CONTEXT); near += 1) {
        chosen.add(near);
      }
    }
  });
  return [...chosen].sort((a, b) => a - b).slice(0, EVENT_ROWS);
};

/**
 * The result's records as a table: the first 20, or (for a scenario run, by default) the records of its
 * event windows with a little context; rows inside a window are highlighted, and their scenario_event
 * cell names the event for those who do not see the colour.
 */
export const renderRecordsTable = (records, fields, rowsChoice) => {
  const hasEvents = records.some((record) => eventOf(record) !== null);
  byId('sim-table-rows-field').hidden = !hasEvents;
  const mode = hasEvents ? rowsChoice : 'first';
  const indexes = mode === 'events' ? aroundEvents(records) : records.slice(0, FIRST_ROWS).map((_, index) => index);
  const inWindows = records.filter((record) => eventOf(record) !== null).length;
  byId('sim-table-caption').textContent =
    mode === 'events'
      ? `${plural(indexes.length, 'record')} around the scenario's events (${formatInteger(inWindows)} of ${formatInteger(records.length)} records are in an event's window, highlighted)`
      : indexes.length === records.length
        ? `All ${plural(records.length, 'record')}`
        : `First ${indexes.length} of ${formatInteger(records.length)} records`;
  byId('sim-table-head').replaceChildren(el('tr', {}, ...fields.map((field) => el('th', { attrs: { scope: 'col' } }, field))));
  byId('sim-table-body').replaceChildren(
    ...indexes.map((index) => {
      const record = records[index];
      const event = eventOf(record);
      return el(
        'tr',
        event === null ? {} : { className: 'is-scenario-event', attrs: { 'data-scenario-event': event } },
        ...fields.map((field) => el('td', { className: typeof record[field] === 'number' ? 'num' : '' }, record[field] ?? '')),
      );
    }),
  );
};
