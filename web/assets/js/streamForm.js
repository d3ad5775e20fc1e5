import { api } from './api.js';
import { byId, el, showText } from './dom.js';
import { explainApiError, humanIssue } from './explainError.js';
import { formatInteger, humanize } from './format.js';

// The Streams page's form: POST /v1/streams with the run's inputs, the speed, the disorder and an optional
// webhook (docs/streams.md "Creating one"). Every field is checked before anything is sent, every problem
// shown beside its field at once; the service's 422 issues are placed the same way.

const SEED_MAX = 4_294_967_295;
const MODEL_PREFIX = 'model:';
/** The stream engine: engine 4 on, the one whose records carry event_time. */
const STREAM_ENGINE_MAJOR = 4;

const option = (value, text, { selected = false, disabled = false } = {}) => el('option', { value, text, selected, disabled });
const whole = (text) => (/^\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN);
const decimal = (text) => (/^\d+(\.\d+)?$|^\.\d+$/.test(text.trim()) ? Number(text.trim()) : Number.NaN);
const streams = (entry) => (entry.engine_versions ?? []).some((version) => Number(String(version).split('.')[0]) >= STREAM_ENGINE_MAJOR);

/**
 * Wires the form; `onCreated(stream, secret)` is told of each new stream (the webhook secret or null).
 * Presets come from the catalog; the account's models are offered only where the service streams them
 * (`modelsStream`), so the form never offers what the API would refuse.
 */
export const setUpStreamForm = ({ onCreated }) => {
  const form = byId('stream-form');
  const source = byId('stream-source');
  const profile = byId('stream-profile');
  const startButton = byId('stream-start');
  const problem = byId('stream-error');
  const fields = {
    seed: byId('stream-seed'),
    num_interactions: byId('stream-count'),
    population: byId('stream-population'),
    speed: byId('stream-speed'),
    'disorder.late_share': byId('stream-late-share'),
    'disorder.max_delay_s': byId('stream-max-delay'),
    'disorder.duplicate_share': byId('stream-duplicate-share'),
    'sink.url': byId('stream-webhook'),
  };
  let presets = [];
  let models = [];
  let modelsStream = false;
  let catalog = new Map();
  let maxPerStream = Number(fields.num_interactions.max);
  let busy = false;

  const fillProfiles = () => {
    const entry = catalog.get(source.value);
    profile.replaceChildren(...(entry?.supported_profiles ?? []).map((name) => option(name, humanize(name), { selected: name === entry.default_profile })));
    byId('stream-source-hint').textContent = entry?.description ?? '';
  };

  const fill = () => {
    const selected = source.value;
    catalog = new Map([
      ...presets.map((preset) => [preset.name, preset]),
      ...(modelsStream ? models.map((model) => [`${MODEL_PREFIX}${model.name}`, { ...model.catalog, name: model.name, available: true }]) : []),
    ]);
    const firstUsable = presets.find((preset) => preset.available && streams(preset))?.name;
    const chosen = catalog.has(selected) ? selected : (presets.find((preset) => preset.name === 'mobile_app' && preset.available && streams(preset))?.name ?? firstUsable);
    source.replaceChildren(
      ...presets.map((preset) =>
        option(preset.name, humanize(preset.name) + (!preset.available ? ' (unavailable)' : streams(preset) ? '' : ' (no engine 4)'), {
          selected: preset.name === chosen,
          disabled: !preset.available || !streams(preset),
        }),
      ),
      ...(modelsStream && models.length > 0
        ? [el('optgroup', { label: 'Your models' }, ...models.map((model) => option(`${MODEL_PREFIX}${model.name}`, `${model.name} (model, version ${model.version})`, { selected: `${MODEL_PREFIX}${model.name}` === chosen })))]
        : []),
    );
    fillProfiles();
  };

  const setPresets = (list) => {
    presets = list;
    fill();
  };

  /** The account's models, and whether this service's POST /v1/streams takes `model`. */
  const setModels = (list, supported) => {
    models = list;
    modelsStream = supported;
    fill();
  };

  const setPlanLimit = (limit) => {
    maxPerStream = limit;
    fields.num_interactions.max = String(limit);
    if (Number(fields.num_interactions.value) > limit) {
      fields.num_interactions.value = String(limit);
    }
    byId('stream-count-hint').textContent = `Up to ${formatInteger(limit)} per stream on your plan.`;
  };

  const errorOf = (field) => byId(`${field.id}-error`);
  const clearIssues = () => {
    for (const field of Object.values(fields)) {
      field.removeAttribute('aria-invalid');
      showText(errorOf(field), '');
    }
  };
  const mark = (field, message) => {
    field.setAttribute('aria-invalid', 'true');
    showText(errorOf(field), message);
  };
  for (const field of Object.values(fields)) {
    field.addEventListener('input', () => {
      field.removeAttribute('aria-invalid');
      showText(errorOf(field), '');
    });
  }

  /** The request body, or null with every problem marked beside its field (the first one focused). */
  const read = () => {
    clearIssues();
    const problems = [];
    const check = (field, value, ok, message) => {
      if (!ok(value)) {
        problems.push([field, message]);
      }
      return value;
    };
    const chosen = source.value;
    const body = chosen.startsWith(MODEL_PREFIX) ? { model: chosen.slice(MODEL_PREFIX.length) } : { preset: chosen };
    body.profile = profile.value;
    body.num_interactions = check(fields.num_interactions, whole(fields.num_interactions.value), (n) => n >= 1 && n <= maxPerStream, `Enter a whole number from 1 to ${formatInteger(maxPerStream)}.`);
    body.population = check(fields.population, whole(fields.population.value), (n) => n >= 1 && n <= 10_000, 'Enter a whole number from 1 to 10,000.');
    body.speed = check(fields.speed, decimal(fields.speed.value), (n) => n >= 0.01 && n <= 100_000, 'Enter a number from 0.01 to 100,000.');
    if (fields.seed.value.trim() !== '') {
      body.seed = check(fields.seed, whole(fields.seed.value), (n) => n >= 0 && n <= SEED_MAX, `Enter a whole number from 0 to ${formatInteger(SEED_MAX)}, or leave it empty.`);
    }
    const late = fields['disorder.late_share'].value.trim();
    const delay = fields['disorder.max_delay_s'].value.trim();
    const duplicates = fields['disorder.duplicate_share'].value.trim();
    if (late !== '' || delay !== '' || duplicates !== '') {
      // Shares are typed in per cent, as people say them, and sent as the API's fractions.
      const disorder = {};
      if (late !== '') {
        disorder.late_share = check(fields['disorder.late_share'], decimal(late), (n) => n >= 0 && n <= 50, 'Enter a percentage from 0 to 50.') / 100;
      }
      if (delay !== '') {
        disorder.max_delay_s = check(fields['disorder.max_delay_s'], decimal(delay), (n) => n >= 1 && n <= 86_400, 'Enter a number of seconds from 1 to 86,400.');
      }
      if (duplicates !== '') {
        disorder.duplicate_share = check(fields['disorder.duplicate_share'], decimal(duplicates), (n) => n >= 0 && n <= 20, 'Enter a percentage from 0 to 20.') / 100;
      }
      body.disorder = disorder;
    }
    const url = fields['sink.url'].value.trim();
    if (url !== '') {
      check(fields['sink.url'], url, (text) => URL.canParse(text) && /^https?:$/.test(new URL(text).protocol), 'Enter an http or https address, or leave it empty.');
      body.sink = { type: 'webhook', url };
    }
    if (problems.length > 0) {
      for (const [field, message] of problems) {
        mark(field, message);
      }
      showText(problem, problems.length === 1 ? 'One value needs a change; see the marked field.' : `${problems.length} values need a change; see the marked fields.`);
      problems[0][0].focus();
      return null;
    }
    return body;
  };

  /** The service's 422 issues beside the fields they name; the rest in the notice. */
  const showIssues = (error) => {
    const rest = [];
    let first = null;
    for (const issue of Array.isArray(error.details.issues) ? error.details.issues : []) {
      const field = Object.hasOwn(fields, issue.path) ? fields[issue.path] : undefined;
      if (field === undefined) {
        rest.push(issue.path ? `${issue.path}: ${humanIssue(issue.message)}` : humanIssue(issue.message));
      } else {
        mark(field, humanIssue(issue.message));
        first ??= field;
      }
    }
    showText(problem, ['Some values were not accepted; see the marked fields.', ...rest].join(' '));
    first?.focus();
  };

  const setBusy = (value) => {
    busy = value;
    // aria-disabled rather than disabled: a disabled button drops keyboard focus to the page's start.
    startButton.setAttribute('aria-disabled', String(value));
    startButton.textContent = value ? 'Starting…' : 'Start the stream';
  };

  source.addEventListener('change', fillProfiles);
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (busy) {
      return;
    }
    const body = read();
    if (body === null) {
      return;
    }
    showText(problem, '');
    setBusy(true);
    try {
      const created = await api('/v1/streams', { method: 'POST', body });
      const { webhook_secret: secret = null, ...stream } = created;
      await onCreated(stream, secret);
    } catch (error) {
      if (error.code === 'validation_failed') {
        showIssues(error);
      } else if (error.code === 'concurrency_limit_exceeded') {
        showText(problem, `Your plan runs ${formatInteger(error.details.limit ?? 1)} ${error.details.limit === 1 ? 'stream' : 'streams'} at a time, and ${error.details.limit === 1 ? 'it is' : 'all are'} running: cancel one below or wait for one to finish.`);
      } else {
        showText(problem, explainApiError(error));
      }
    } finally {
      setBusy(false);
    }
  });

  return { setPresets, setModels, setPlanLimit };
};
