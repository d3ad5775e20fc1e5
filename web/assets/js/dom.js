// Builds DOM nodes from data without ever parsing strings as HTML: the pages run under Trusted Types with
// no policy, so innerHTML is not an option, and text from the API can never become markup.

/**
 * el('td', { className: 'num', attrs: { scope: 'row' } }, 'text', childNode)
 * Props are element properties, except `attrs` (set with setAttribute).
 */
export const el = (tag, props = {}, ...children) => {
  const node = document.createElement(tag);
  const { attrs, ...properties } = props;
  Object.assign(node, properties);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    node.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined && child !== false) {
      node.append(child instanceof Node ? child : String(child));
    }
  }
  return node;
};

export const byId = (id) => {
  const node = document.getElementById(id);
  if (node === null) {
    throw new Error(`#${id} is missing from the page`);
  }
  return node;
};

/** Shows a message element with the text, or hides it when the text is empty. */
export const showText = (node, text) => {
  node.textContent = text;
  node.hidden = text === '';
};

/** Polite announcement for screen readers (the page's role=status region). */
export const announce = (text) => {
  const region = document.getElementById('page-status');
  if (region !== null) {
    // Clearing first makes a repeated identical message announce again.
    region.textContent = '';
    setTimeout(() => {
      region.textContent = text;
    }, 50);
  }
};
