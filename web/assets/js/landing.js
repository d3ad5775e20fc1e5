import { explainLoginError } from './explainError.js';

// The landing page needs script only to explain a failed sign-in and to show this host in the example.
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
