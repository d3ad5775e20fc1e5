// The console's pages: one document, one <section data-page> per page, each with its own URL under
// /account (the server answers every one with this document: api/routes/web/routes.ts). Links carrying
// data-page move between them with the History API, so deep links, reloads and the back button work
// (docs/console.md "Pages"). No framework: showing a page is toggling `hidden` on a few sections. A page
// may have items of its own below its path (a stream: /account/streams/{id}), named by `item`.

const PAGES = {
  overview: { path: '/account', title: 'Overview' },
  run: { path: '/account/run', title: 'Run' },
  history: { path: '/account/history', title: 'History' },
  models: { path: '/account/models', title: 'Models' },
  streams: { path: '/account/streams', title: 'Streams' },
  keys: { path: '/account/keys', title: 'Keys' },
  usage: { path: '/account/usage', title: 'Usage' },
};

const SITE_TITLE = 'Console · Behavioral Simulation Service';

/** Pages with items of their own at `<path>/<item>`, and what an item looks like (the server's route is as strict). */
const ITEMS = {
  streams: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
};

/** The page a path names, with its item if any; anything else under /account is the overview. */
const pageOf = (pathname) => {
  const match = /^\/account(?:\/([a-z]+)(?:\/([^/]+))?)?\/?$/.exec(pathname);
  const name = match?.[1] ?? 'overview';
  if (!Object.hasOwn(PAGES, name)) {
    return { name: 'overview', item: null };
  }
  const item = match?.[2] ?? null;
  return { name, item: item !== null && Object.hasOwn(ITEMS, name) && ITEMS[name].test(item) ? item : null };
};

/**
 * Shows the page of the current URL and keeps it in step with the address bar. `onShow(name, params, item)`
 * is told of every page shown (with the URL's query and the page's item, or null), for pages that load or
 * size themselves when seen.
 */
export const setUpRouter = ({ onShow = () => {} } = {}) => {
  const sections = [...document.querySelectorAll('section.page[data-page]')];
  const links = [...document.querySelectorAll('.console-nav a[data-page]')];
  let current = null;

  const show = ({ name, item }, { focus }) => {
    current = name;
    for (const section of sections) {
      section.hidden = section.dataset.page !== name;
    }
    for (const link of links) {
      if (link.dataset.page === name) {
        link.setAttribute('aria-current', 'page');
      } else {
        link.removeAttribute('aria-current');
      }
    }
    document.title = `${PAGES[name].title} · ${SITE_TITLE}`;
    document.body.dataset.page = name;
    if (focus) {
      // The new page's heading takes the focus, so a screen reader announces where one landed and Tab
      // continues from the top of the page rather than from the link in the navigation.
      document.getElementById(`page-${name}-title`)?.focus();
      window.scrollTo(0, 0);
    }
    onShow(name, new URLSearchParams(window.location.search), item);
  };

  /**
   * Goes to a page (an entry in the history), with an optional query such as { model: 'x' } and an
   * optional item of the page (a stream's id).
   */
  const navigate = (name, query = {}, item = null) => {
    const search = new URLSearchParams(query).toString();
    const url = `${PAGES[name].path}${item === null ? '' : `/${encodeURIComponent(item)}`}${search === '' ? '' : `?${search}`}`;
    if (`${window.location.pathname}${window.location.search}` !== url) {
      window.history.pushState(null, '', url);
    }
    show(pageOf(new URL(url, window.location.href).pathname), { focus: true });
  };

  document.addEventListener('click', (event) => {
    const link = event.target instanceof Element ? event.target.closest('a[data-page]') : null;
    // A modified click (new tab, new window) or another button keeps the browser's own behaviour.
    if (link === null || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) {
      return;
    }
    const name = link.dataset.page;
    if (!Object.hasOwn(PAGES, name)) {
      return;
    }
    event.preventDefault();
    const target = new URL(link.href);
    navigate(name, Object.fromEntries(target.searchParams), pageOf(target.pathname).item);
  });

  window.addEventListener('popstate', () => show(pageOf(window.location.pathname), { focus: true }));

  show(pageOf(window.location.pathname), { focus: false });
  return { navigate, current: () => current, item: () => pageOf(window.location.pathname).item };
};
