import { api, setUnauthorizedHandler, signInUrl } from './api.js';
import { loadAccount, setUpSignOut } from './accountPanel.js';
import { setUpRouter } from './consoleRouter.js';
import { byId, showText } from './dom.js';
import { explainApiError, explainLoginError } from './explainError.js';
import { setUpHistory } from './historyPanel.js';
import { setUpKeys } from './keysPanel.js';
import { setUpModels } from './modelsPanel.js';
import { loadPlans } from './plansPanel.js';
import { setUpSimulation } from './simulationPanel.js';
import { setUpStreams } from './streamsPanel.js';
import { setUpUsageDaily } from './usageDailyPanel.js';
import { loadUsage } from './usagePanel.js';

const main = byId('main');
// The page of the URL shows at once; its content fills in as the account loads.
// Pages that act on being shown (a model chosen for the Run page) are wired once the account has loaded.
let pageShown = () => {};
const router = setUpRouter({ onShow: (name, params, item) => pageShown(name, params, item, { focus: true }) });
const notice = byId('page-notice');
const showNotice = (text, kind = 'error') => {
  notice.className = `notice notice-${kind}`;
  showText(notice, text);
};

// A failed sign-in lands here with ?error=<code>. Without a session the sign-in page explains it;
// with one (a failed attempt to link a second provider) the console does.
const params = new URLSearchParams(window.location.search);
const loginError = params.get('error');
// Only the first look at the account concerns the failed sign-in; a session ending later is its own reason.
let carriedLoginError = loginError;
if (loginError !== null) {
  params.delete('error');
  const query = params.toString();
  window.history.replaceState(null, '', `${window.location.pathname}${query === '' ? '' : `?${query}`}`);
}

// Without a session, the sign-in page; it explains a failed sign-in, or an ended session.
setUnauthorizedHandler((error) => {
  const reason = carriedLoginError ?? (error.code === 'invalid_credentials' ? 'session_expired' : undefined);
  window.location.replace(signInUrl(reason ?? undefined));
});

const start = async () => {
  const catalog = api('/v1/presets').catch(() => null);
  let account;
  try {
    account = await loadAccount();
  } catch (error) {
    if (error.status === 401) {
      return;
    }
    showNotice(`Your account could not be loaded. ${explainApiError(error)}`);
    main.removeAttribute('aria-busy');
    return;
  }
  carriedLoginError = null;
  if (loginError !== null) {
    showNotice(explainLoginError(loginError));
  }
  setUpSignOut(showNotice);

  const usageDaily = setUpUsageDaily({ onCredentials: (credentials) => keys.setUsage(credentials) });
  const keys = setUpKeys({ onKeys: (list) => usageDaily.setKeys(list) });
  const simulation = setUpSimulation({
    onFinished: () => {
      void refreshUsage();
      void history.load();
    },
  });
  // A run of the history is shown, or run again, on the Run page.
  const history = setUpHistory({
    showResult: (result, title) => {
      router.navigate('run');
      return simulation.showResult(result, title);
    },
    runAgain: (run) => {
      router.navigate('run');
      simulation.runAgain(run);
    },
  });
  // Streams: a stream's own address opens it live; the form and the list otherwise.
  const streams = setUpStreams({ navigate: (name, query, item) => router.navigate(name, query, item) });
  const refreshUsage = async () => {
    // The plan's limits as soon as the usage says them, not after the slower daily chart.
    const limits = loadUsage().then((usage) => {
      if (usage !== null) {
        simulation.setPlanLimit(usage.plan.max_interactions_per_request);
        keys.setPlanLimit(usage.plan.max_interactions_per_request);
        streams.setPlanLimit(usage.plan.max_interactions_per_request);
      }
    });
    await Promise.all([limits, usageDaily.load()]);
  };
  // The account's models, each with its catalog, for the Run page's choice; the Models page lists them.
  const loadModels = async () => {
    try {
      const summaries = await api('/v1/models');
      const list = await Promise.all(summaries.map((summary) => api(`/v1/models/${encodeURIComponent(summary.name)}`)));
      simulation.setModels(list);
      await streams.setModels(list);
    } catch {
      // The Models page says why; the Run page keeps its presets.
    }
  };
  const models = setUpModels({
    runModel: (name) => router.navigate('run', { model: name }),
    onSaved: () => loadModels(),
  });
  pageShown = async (name, params, item, { focus = false } = {}) => {
    if (name === 'streams') {
      await streams.show(item, { focus });
    } else {
      streams.hide();
    }
    if (name === 'models') {
      await models.list();
    }
    if (name === 'run' && params.has('model')) {
      if (!simulation.chooseModel(params.get('model'))) {
        await loadModels();
        simulation.chooseModel(params.get('model'));
      }
    }
  };
  const presets = await catalog;
  if (presets === null) {
    showText(byId('sim-error'), 'The preset catalog could not be loaded. Reload the page to try again.');
  } else {
    simulation.setPresets(presets);
    history.setPresets(presets);
    streams.setPresets(presets);
  }
  await Promise.all([refreshUsage(), keys.load(), history.load(), loadPlans(account), loadModels(), models.loadGallery()]);
  await pageShown(router.current(), new URLSearchParams(window.location.search), router.item());
  main.removeAttribute('aria-busy');
};

void start();
