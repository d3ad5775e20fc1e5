import { byId, el } from './dom.js';

// A first run with a new key, in each way the service can be called. The key is filled in because that
// is what gets someone from "I have a key" to "I have data"; the snippets live only as long as the key is
// shown, and leave the page with it.

const quote = (text) => `'${text.replaceAll("'", "'\\''")}'`;

/** The four snippets for `key` against the service at `origin`, asking for `count` interactions. */
export const snippetsFor = (origin, key, count) => {
  const body = JSON.stringify({ preset: 'finance', num_interactions: count, seed: 42 });
  return [
    {
      id: 'curl',
      label: 'curl',
      note: 'Any shell. The records come back as JSON; add -H "Accept: text/csv" for CSV.',
      code: [
        `curl -sS ${quote(`${origin}/v1/simulations`)} \\`,
        `  -H ${quote(`Authorization: Bearer ${key}`)} \\`,
        "  -H 'Content-Type: application/json' \\",
        `  -d ${quote(body)} \\`,
        '  -o finance.json',
      ].join('\n'),
    },
    {
      id: 'cli',
      label: 'CLI',
      note: "In a checkout of the service's repository, after npm ci.",
      code: [
        `export BSS_API_URL=${quote(origin)}`,
        `export BSS_API_KEY=${quote(key)}`,
        `npm run --silent cli -- simulate --preset finance -n ${count} --seed 42 --format csv --out finance.csv`,
      ].join('\n'),
    },
    {
      id: 'typescript',
      label: 'TypeScript',
      note: "The SDK is sdk/ in the service's repository; save as example.ts there and run npx node example.ts.",
      code: [
        "import { createBssClient } from './sdk/index.ts';",
        '',
        `const client = createBssClient({ baseUrl: ${quote(origin)}, apiKey: ${quote(key)} });`,
        `const result = await client.simulate({ preset: 'finance', num_interactions: ${count}, seed: 42 });`,
        "console.log(result.data.length, 'records from engine', result.metadata.service_version);",
      ].join('\n'),
    },
    {
      id: 'python',
      label: 'Python',
      note: "Install the client from the service's repository: pip install ./clients/python (to_pandas() needs pandas).",
      code: [
        'import bss',
        '',
        `client = bss.Client(api_url=${JSON.stringify(origin)}, api_key=${JSON.stringify(key)})`,
        `df = client.simulate("finance", ${count}, seed=42).to_pandas()`,
        'print(df.head())',
      ].join('\n'),
    },
  ];
};

/**
 * The tabbed getting-started panel of the new-key box: a tablist (arrow keys, Home and End move between
 * tabs, as the ARIA authoring practices describe) with one code panel and copy button per client.
 */
export const setUpGettingStarted = () => {
  const tabs = byId('getting-started-tabs');
  const panels = byId('getting-started-panels');
  const copied = byId('getting-started-copied');

  const select = (tab, { focus = false } = {}) => {
    for (const other of tabs.querySelectorAll('[role="tab"]')) {
      const selected = other === tab;
      other.setAttribute('aria-selected', String(selected));
      other.tabIndex = selected ? 0 : -1;
      byId(other.getAttribute('aria-controls')).hidden = !selected;
    }
    if (focus) {
      tab.focus();
    }
  };

  tabs.addEventListener('keydown', (event) => {
    const all = [...tabs.querySelectorAll('[role="tab"]')];
    const current = all.indexOf(document.activeElement);
    if (current < 0) {
      return;
    }
    const next = { ArrowRight: current + 1, ArrowLeft: current - 1, Home: 0, End: all.length - 1 }[event.key];
    if (next === undefined) {
      return;
    }
    event.preventDefault();
    select(all[(next + all.length) % all.length], { focus: true });
  });

  const copy = async (snippet, button) => {
    const code = byId(`getting-started-code-${snippet.id}`);
    try {
      await navigator.clipboard.writeText(code.textContent);
      copied.textContent = `The ${snippet.label} example is copied to the clipboard.`;
    } catch {
      // No clipboard permission: select the code for Ctrl+C instead.
      const range = document.createRange();
      range.selectNodeContents(code);
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      button.focus();
      copied.textContent = 'Selected: press Ctrl+C (⌘C on a Mac) to copy.';
    }
  };

  const show = (key, count) => {
    const snippets = snippetsFor(window.location.origin, key, count);
    tabs.replaceChildren(
      ...snippets.map((snippet) =>
        el('button', {
          type: 'button',
          id: `getting-started-tab-${snippet.id}`,
          className: 'tab',
          textContent: snippet.label,
          attrs: { role: 'tab', 'aria-controls': `getting-started-panel-${snippet.id}` },
          onclick: (event) => select(event.currentTarget),
        }),
      ),
    );
    panels.replaceChildren(
      ...snippets.map((snippet) => {
        const button = el('button', { type: 'button', className: 'button button-small', textContent: 'Copy', attrs: { 'aria-label': `Copy the ${snippet.label} example` } });
        button.addEventListener('click', () => void copy(snippet, button));
        return el(
          'div',
          { id: `getting-started-panel-${snippet.id}`, className: 'tab-panel', attrs: { role: 'tabpanel', 'aria-labelledby': `getting-started-tab-${snippet.id}` } },
          el('p', { className: 'small' }, snippet.note),
          el('pre', { className: 'code', tabIndex: 0, attrs: { 'aria-label': `${snippet.label} example` } }, el('code', { id: `getting-started-code-${snippet.id}` }, snippet.code)),
          button,
        );
      }),
    );
    copied.textContent = '';
    select(tabs.querySelector('[role="tab"]'));
  };

  /** Every snippet leaves the page: they hold the key. */
  const clear = () => {
    tabs.replaceChildren();
    panels.replaceChildren();
    copied.textContent = '';
  };

  return { show, clear };
};
