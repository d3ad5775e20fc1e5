import { explainLoginError } from './explainError.js';

// The landing page needs script only to offer the configured sign-in providers, explain a failed sign-in
// and show this host in the example.
const params = new URLSearchParams(window.location.search);
const code = params.get('error');
if (code !== null) {
  const notice = document.getElementById('login-error');
  notice.textContent = explainLoginError(code);
  notice.hidden = false;
  // A reload should not repeat an old failure.
  params.delete('error');
  const query = params.toString();
  window.history.replaceState(null, '', `${window.location.pathname}${query === '' ? '' : `?${query}`}`);
}
for (const node of document.querySelectorAll('.js-origin')) {
  node.textContent = window.location.origin;
}

// Backticks mark commands in the server's text; shown as code, built with textContent only (CSP).
const withCode = (text) =>
  text.split(/(`[^`]*`)/).map((part) => {
    if (part.length > 1 && part.startsWith('`') && part.endsWith('`')) {
      const code = document.createElement('code');
      code.textContent = part.slice(1, -1);
      return code;
    }
    return document.createTextNode(part);
  });

const offerSignIn = async () => {
  const response = await fetch('/v1/auth/providers', { headers: { Accept: 'application/json' } });
  if (!response.ok) {
    return;
  }
  const { providers, local_sign_in: localSignIn } = await response.json();
  const list = document.getElementById('sign-in-list');
  for (const provider of providers) {
    const link = document.createElement('a');
    link.className = 'button button-primary';
    link.href = provider.url;
    link.textContent = `Sign in with ${provider.label}`;
    const item = document.createElement('li');
    item.append(link);
    list.append(item);
  }
  if (localSignIn !== null) {
    const local = document.getElementById('sign-in-local');
    local.replaceChildren(...withCode(localSignIn));
    local.hidden = false;
  } else if (providers.length === 0) {
    document.getElementById('sign-in-none').hidden = false;
  }
};
void offerSignIn();
