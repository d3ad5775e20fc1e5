import { byId } from './dom.js';
import { setUpStreamForm } from './streamForm.js';
import { setUpStreamLive } from './streamLive.js';
import { setUpStreamsList } from './streamsList.js';

// The Streams page (docs/console.md "Streams"): at /account/streams the form and the account's streams; at
// /account/streams/{id} one stream ticking live above the list. A new stream opens at its own address, so
// the back button, a reload and a shared link all land on it.

/** Whether this service's POST /v1/streams takes `model` (its OpenAPI document says): asked once. */
let modelsStream = null;
const streamsModels = () => {
  modelsStream ??= fetch('/openapi.json', { credentials: 'same-origin' })
    .then((response) => (response.ok ? response.json() : null))
    .then((document) => document?.components?.schemas?.StreamRequest?.properties?.model !== undefined)
    .catch(() => false);
  return modelsStream;
};

export const setUpStreams = ({ navigate }) => {
  const createCard = byId('stream-create');
  let presets = [];
  let models = [];
  const catalogOf = (request) => {
    if (typeof request?.model === 'string' || typeof request?.model?.name === 'string') {
      const name = typeof request.model === 'string' ? request.model.split('@')[0] : request.model.name;
      const model = models.find((entry) => entry.name === name);
      return model === undefined ? undefined : { ...model.catalog, name: model.name };
    }
    return presets.find((preset) => preset.name === request?.preset);
  };
  const list = setUpStreamsList({ onCancelled: (stream) => live.cancelled(stream) });
  const live = setUpStreamLive({ catalogOf, onEnded: () => list.load() });
  const form = setUpStreamForm({
    onCreated: (stream, secret) => {
      live.rememberSecret(stream.id, secret);
      navigate('streams', {}, stream.id);
    },
  });

  const setPresets = (catalog) => {
    presets = catalog;
    form.setPresets(catalog);
  };

  const setModels = async (list) => {
    models = list;
    form.setModels(list, list.length > 0 && (await streamsModels()));
  };

  /** The page is shown: one stream (`item`, its id) or the form; the list either way. */
  const show = async (item, { focus = false } = {}) => {
    createCard.hidden = item !== null;
    if (item === null) {
      live.close();
    } else {
      void live.open(item, { focus });
    }
    await list.load();
  };

  return { setPresets, setModels, setPlanLimit: form.setPlanLimit, show, hide: live.close };
};
