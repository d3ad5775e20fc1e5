import { announce, byId, el, showText } from './dom.js';
import { formatInteger, humanize } from './format.js';
import { humanIssue } from './explainError.js';

// The run form's scenario: up to 16 events, each a type from the chosen preset's catalog, a target
// sequence (or all), a start step, a duration and an intensity. Before sending, the page checks every
// field against the documented bounds and the preset's catalog and shows all problems at once, in words
// (the API checks an event's type only once the shape is valid, so its answer alone would reveal a type
// of another preset one round later); the API's 422 issues are still shown beside the fields they name.

const MAX_EVENTS = 16;
const FIELDS = ['type', 'sequence', 'at_step', 'duration', 'intensity'];
const DEFAULTS = { sequence: '1', at_step: '20', duration: '20', intensity: '1' };
const WHOLE = /^\d+$/;
// The bounds of shared/engine/scenario.ts (SCENARIO_LIMITS), as docs/console.md states them.
const MAX_DURATION = 1000;
const MAX_INTENSITY = 3;

const numberInput = (props) => el('input', { type: 'number', inputMode: 'decimal', autocomplete: 'off', ...props });

export const setUpScenarioEditor = () => {
  const list = byId('scenario-events');
  const addButton = byId('scenario-add');
  const hint = byId('scenario-hint');
  const count = byId('scenario-count');
  const problem = byId('scenario-error');
  const defaultHint = hint.textContent;

  let types = [];
  let rows = [];
  let made = 0;

  const describeType = (row) => {
    const entry = types.find((candidate) => candidate.type === row.controls.type.value);
    row.description.textContent = entry === undefined ? '' : `${entry.description} Effect inside its window: ${entry.effect.replace(/\.$/, '')}.`;
  };

  let presetName = '';
  const fillTypes = (row, wanted) => {
    const options = types.map((entry) => el('option', { value: entry.type, text: humanize(entry.type), selected: entry.type === wanted }));
    // A type the chosen preset does not have (the preset was changed after it was picked) stays chosen and
    // marked, rather than silently becoming another event.
    if (wanted !== undefined && wanted !== '' && !types.some((entry) => entry.type === wanted)) {
      options.push(el('option', { value: wanted, text: `${humanize(wanted)} (not a ${humanize(presetName)} event)`, selected: true }));
    }
    row.controls.type.replaceChildren(...options);
    describeType(row);
  };

  const typeProblem = (type) =>
    types.some((entry) => entry.type === type)
      ? ''
      : `${humanize(type)} is not an event of ${humanize(presetName)}; choose one of ${types.map((entry) => humanize(entry.type)).join(', ')}.`;

  const showCount = () => {
    const full = rows.length >= MAX_EVENTS;
    addButton.setAttribute('aria-disabled', String(full));
    count.textContent =
      rows.length === 0 ? 'No events: the run is made as usual.' : `${rows.length} of ${MAX_EVENTS} events${full ? ', the most a run takes' : ''}.`;
    rows.forEach((row, index) => {
      row.legend.textContent = `Event ${index + 1}`;
      row.remove.setAttribute('aria-label', `Remove event ${index + 1}`);
    });
  };

  const setError = (row, name, message) => {
    const control = row.controls[name];
    if (message === '') {
      control.removeAttribute('aria-invalid');
    } else {
      control.setAttribute('aria-invalid', 'true');
    }
    showText(row.errors[name], message);
  };

  const clearIssues = () => {
    showText(problem, '');
    for (const row of rows) {
      for (const name of FIELDS) {
        setError(row, name, '');
      }
    }
  };

  const remove = (row) => {
    const index = rows.indexOf(row);
    rows = rows.filter((candidate) => candidate !== row);
    row.node.remove();
    showCount();
    // Focus stays in the editor: on the event that took this one's place, or on the add button.
    ((rows[index] ?? rows[index - 1])?.controls.type ?? addButton).focus();
    announce(`Event ${index + 1} removed; ${count.textContent}`);
  };

  const add = (values = {}) => {
    made += 1;
    const id = `scenario-${made}`;
    const row = { controls: {}, errors: {} };
    row.controls.type = el('select', { name: 'type' });
    row.controls.sequence = el('input', { type: 'text', name: 'sequence', autocomplete: 'off', spellcheck: false, value: String(values.sequence ?? DEFAULTS.sequence) });
    row.controls.at_step = numberInput({ name: 'at_step', min: '1', step: '1', value: String(values.at_step ?? DEFAULTS.at_step) });
    row.controls.duration = numberInput({ name: 'duration', min: '1', max: '1000', step: '1', value: String(values.duration ?? DEFAULTS.duration) });
    row.controls.intensity = numberInput({ name: 'intensity', min: '0', max: '3', step: '0.1', value: String(values.intensity ?? DEFAULTS.intensity) });
    row.description = el('span', { className: 'hint', id: `${id}-type-hint` });
    const hints = {
      type: row.description,
      sequence: 'A sequence number (1 is the first subject), or all.',
      at_step: 'Its place in the sequence; 1 is the first record.',
      duration: 'Steps, from 1 to 1,000.',
      intensity: 'Above 0, up to 3; 1 is the effect the catalog states.',
    };
    const labels = { type: 'Event type', sequence: 'Sequence', at_step: 'Starts at step', duration: 'Duration (steps)', intensity: 'Intensity' };
    const fields = FIELDS.map((name) => {
      const control = row.controls[name];
      control.id = `${id}-${name}`;
      const note = typeof hints[name] === 'string' ? el('span', { className: 'hint', id: `${id}-${name}-hint` }, hints[name]) : hints[name];
      row.errors[name] = el('span', { className: 'field-error', id: `${id}-${name}-error`, hidden: true });
      control.setAttribute('aria-describedby', `${note.id} ${row.errors[name].id}`);
      return el('div', { className: `field scenario-field-${name}` }, el('label', { htmlFor: control.id }, labels[name]), control, note, row.errors[name]);
    });
    row.legend = el('legend', {});
    row.remove = el('button', { type: 'button', className: 'button button-small button-quiet', textContent: 'Remove', onclick: () => remove(row) });
    row.node = el('li', { className: 'scenario-event' }, el('fieldset', {}, row.legend, el('div', { className: 'scenario-fields' }, fields), el('div', { className: 'scenario-remove' }, row.remove)));
    fillTypes(row, values.type);
    row.controls.type.addEventListener('change', () => {
      describeType(row);
      setError(row, 'type', typeProblem(row.controls.type.value));
    });
    for (const name of FIELDS) {
      // An edit answers the issue shown beside the field.
      row.controls[name].addEventListener('input', () => setError(row, name, ''));
    }
    rows.push(row);
    list.append(row.node);
    showCount();
    return row;
  };

  addButton.addEventListener('click', () => {
    if (rows.length >= MAX_EVENTS || types.length === 0) {
      announce(`A run takes at most ${MAX_EVENTS} events.`);
      return;
    }
    const row = add();
    row.controls.type.focus();
    announce(`Event ${rows.length} added.`);
  });

  const clear = () => {
    for (const row of rows) {
      row.node.remove();
    }
    rows = [];
    showCount();
  };

  /** The chosen preset's event types; a preset without any (no engine 3 for it here) takes no scenario. */
  const setPreset = (preset) => {
    types = preset?.scenario_events ?? [];
    presetName = preset?.name ?? '';
    addButton.hidden = types.length === 0;
    hint.textContent = types.length === 0 ? 'This preset has no scenario events on this service: they need engine 3.' : defaultHint;
    if (types.length === 0) {
      clear();
    }
    for (const row of rows) {
      fillTypes(row, row.controls.type.value);
    }
    showCount();
  };

  /**
   * The scenario as typed, `undefined` for none, or null when a field is not even a number (marked beside
   * it, and focused). Bounds are the API's to judge.
   */
  const read = () => {
    clearIssues();
    if (rows.length === 0) {
      return undefined;
    }
    let invalid = null;
    const flag = (row, name, message) => {
      setError(row, name, message);
      invalid ??= row.controls[name];
    };
    const events = rows.map((row) => {
      const text = (name) => row.controls[name].value.trim();
      const event = { type: row.controls.type.value };
      const wrongType = typeProblem(event.type);
      if (wrongType !== '') {
        flag(row, 'type', wrongType);
      }
      const sequence = text('sequence').toLowerCase();
      if (sequence === 'all' || (WHOLE.test(sequence) && Number(sequence) >= 1)) {
        event.sequence = sequence === 'all' ? 'all' : Number(sequence);
      } else {
        flag(row, 'sequence', 'Enter a sequence number from 1, or all.');
      }
      if (WHOLE.test(text('at_step')) && Number(text('at_step')) >= 1) {
        event.at_step = Number(text('at_step'));
      } else {
        flag(row, 'at_step', 'Enter a whole number from 1 (the sequence’s first record).');
      }
      const duration = Number(text('duration'));
      if (WHOLE.test(text('duration')) && duration >= 1 && duration <= MAX_DURATION) {
        event.duration = duration;
      } else {
        flag(row, 'duration', `Enter a whole number of steps from 1 to ${formatInteger(MAX_DURATION)}.`);
      }
      if (text('intensity') !== '') {
        const intensity = Number(text('intensity'));
        if (Number.isFinite(intensity) && intensity > 0 && intensity <= MAX_INTENSITY) {
          event.intensity = intensity;
        } else {
          flag(row, 'intensity', `Enter a number above 0 and up to ${MAX_INTENSITY}, or leave it empty for 1.`);
        }
      }
      return event;
    });
    if (invalid !== null) {
      invalid.focus();
      return null;
    }
    return { events };
  };

  /**
   * Places the API's issues about the scenario (`scenario.events.<i>.<field>`) beside their fields, and
   * those about the whole scenario or one event under the editor. Returns the control of the first placed
   * issue (to focus) and the issues that are not the scenario's.
   */
  const showIssues = (issues) => {
    let first = null;
    const rest = [];
    const general = [];
    for (const issue of issues) {
      const path = String(issue.path ?? '').split('.');
      if (path[0] !== 'scenario') {
        rest.push(issue);
        continue;
      }
      const row = path[1] === 'events' && WHOLE.test(path[2] ?? '') ? rows[Number(path[2])] : undefined;
      const name = path[3];
      if (row !== undefined && FIELDS.includes(name)) {
        setError(row, name, humanIssue(issue.message));
        first ??= row.controls[name];
      } else {
        general.push(row === undefined ? humanIssue(issue.message) : `Event ${rows.indexOf(row) + 1}: ${humanIssue(issue.message)}`);
        first ??= rows[0]?.controls.type ?? addButton;
      }
    }
    showText(problem, general.join(' '));
    return { first, rest };
  };

  /** An earlier run's scenario, as editable events (run again). */
  const load = (scenario) => {
    clear();
    for (const event of scenario?.events ?? []) {
      add(event);
    }
  };

  showCount();
  return { setPreset, read, showIssues, clearIssues, load };
};
