import { formatDuration, formatInteger, formatNumber, formatUtcDate, plural } from './format.js';

// The API's error envelope, in words a person can act on: what happened, and what to do or when to retry.

const retryIn = (error) => (error.retryAfter === null ? 'Try again in a moment.' : `Try again in ${formatDuration(error.retryAfter)}.`);

const resetsOn = (details) => (typeof details.resets_at === 'string' ? ` It resets on ${formatUtcDate(details.resets_at)}.` : '');

const withRequestId = (text, error) => (error.requestId === null ? text : `${text} (Request id: ${error.requestId}.)`);

const EXPLAIN = {
  network_error: () => 'Could not reach the service. Check your connection and try again.',
  rate_limit_exceeded: (error, d) =>
    `Too many requests: your plan allows ${plural(d.limit ?? 0, 'request')} a minute. ${retryIn(error)}`,
  concurrency_limit_exceeded: (error, d) =>
    `Your plan runs ${plural(d.limit ?? 1, 'simulation')} at a time and the limit is busy. ${retryIn(error)}`,
  monthly_request_quota_exceeded: (error, d) =>
    `You have used all ${plural(d.limit ?? 0, 'simulation request')} of this month.${resetsOn(d)}`,
  monthly_interaction_quota_exceeded: (error, d) => {
    const left = Math.max(0, (d.limit ?? 0) - (d.used ?? 0));
    const ask = left > 0 ? ` Ask for ${formatInteger(left)} or fewer, or wait for the reset.` : '';
    return `This run needs ${plural(d.requested ?? 0, 'interaction')}, but only ${formatInteger(left)} of this month's ${formatInteger(d.limit ?? 0)} are left.${resetsOn(d)}${ask}`;
  },
  interactions_per_request_exceeded: (error, d) =>
    `Your plan allows at most ${plural(d.limit ?? 0, 'interaction')} per run${d.requested === undefined ? '' : `; you asked for ${formatInteger(d.requested)}`}.`,
  api_key_limit_reached: (error, d) =>
    `Your plan allows ${plural(d.limit ?? 1, 'active API key')}. Revoke one before creating another.`,
  api_key_not_found: () => 'That key no longer exists; the list has been refreshed.',
  stream_not_found: () => 'No stream of yours has this id: it may belong to another account, or its events are no longer kept.',
  validation_failed: (error, d) => {
    const issues = Array.isArray(d.issues) ? d.issues : [];
    const listed = issues.map((issue) => (issue.path ? `${issue.path}: ${humanIssue(issue.message)}` : humanIssue(issue.message))).join('; ');
    return listed === '' ? 'Some values were not accepted.' : `Some values were not accepted: ${listed}`;
  },
  preset_unavailable: () => 'This preset is unavailable right now. Choose another one.',
  preset_not_found: () => 'This preset does not exist. Reload the page to refresh the catalog.',
  csrf_rejected: () => 'The request was refused because it did not come from this site. Reload the page and try again.',
  account_disabled: () => 'This account is disabled.',
  simulation_timeout: () => 'The simulation did not finish in time and nothing was counted. Try fewer interactions or try again later.',
  service_unavailable: (error) => `The service is temporarily unavailable. ${retryIn(error)}`,
  payload_too_large: () => 'The request is too large.',
  invalid_credentials: () => 'Your session has ended. Please sign in again.',
  authentication_required: () => 'Please sign in.',
};

const BOUND = /^Too (big|small): expected (number|string|array|int) to (?:be|have) ([<>]=?)(-?[\d.]+)(?: (\w+))?/;
const COMPARISONS = { '<=': 'at most', '<': 'below', '>=': 'at least', '>': 'above' };

/**
 * A validation issue's message in plain words: the API's bounds come in its validation library's wording
 * ("Too big: expected number to be <=1000"), which is turned into "At most 1,000."; other messages are
 * the API's own sentences and pass through.
 */
export const humanIssue = (message) => {
  const text = String(message ?? '');
  const bound = BOUND.exec(text);
  if (bound !== null) {
    const [, , kind, comparison, limit, unit] = bound;
    const amount = formatNumber(Number(limit));
    const what = kind === 'string' ? ` ${unit ?? 'characters'}` : kind === 'array' ? ` ${unit ?? 'items'}` : '';
    const sentence = `${COMPARISONS[comparison] ?? comparison} ${amount}${what}.`;
    return sentence.charAt(0).toUpperCase() + sentence.slice(1);
  }
  if (/^Invalid input: expected int\b/.test(text)) {
    return 'Enter a whole number.';
  }
  if (/^Invalid input: expected number\b/.test(text)) {
    return 'Enter a number.';
  }
  return text;
};

export const explainApiError = (error) => {
  // hasOwn: a code such as "constructor" must not find Object.prototype's members.
  const explain = Object.hasOwn(EXPLAIN, error.code) ? EXPLAIN[error.code] : undefined;
  if (explain !== undefined) {
    const text = explain(error, error.details ?? {});
    return error.status >= 500 ? withRequestId(text, error) : text;
  }
  if (error.status >= 500) {
    return withRequestId('Something went wrong on our side. Please try again; if it keeps happening, contact support.', error);
  }
  // The envelope's own message is written for people; better than nothing for a code this page does not know.
  return withRequestId(error.message, error);
};

// Why a sign-in came back without a session: the `?error=` codes of api/auth/LoginError.ts, plus a few
// synonyms so a renamed code still reads well. Anything else gets the generic sentence.
const STATE_PROBLEM = 'Sign-in could not be verified: it took too long or was started in another tab. Please start again from this page.';
const NO_EMAIL = 'The identity provider did not share a verified e-mail address. Verify one there (and make it visible to this app), then sign in again.';
const PROVIDER_DOWN = 'Sign-in with this provider is not available right now. Try the other provider or come back later.';
const LOGIN_ERRORS = {
  access_denied: 'Sign-in was cancelled: access was not granted at the identity provider. You can try again whenever you like.',
  invalid_state: STATE_PROBLEM,
  state_mismatch: STATE_PROBLEM,
  provider_error: 'The identity provider reported a problem with this sign-in. Please try again.',
  exchange_failed: 'The identity provider did not confirm your sign-in. Please try again in a moment.',
  email_unavailable: NO_EMAIL,
  email_unverified: NO_EMAIL,
  provider_unavailable: PROVIDER_DOWN,
  provider_not_found: 'That sign-in provider is not supported. Use GitHub or Google.',
  account_disabled: 'This account is disabled, so you cannot sign in.',
  server_error: 'Sign-in failed because of a problem on our side. Please try again in a moment.',
  session_expired: 'Your session has ended. Please sign in again.',
};

export const explainLoginError = (code) =>
  Object.hasOwn(LOGIN_ERRORS, code) ? LOGIN_ERRORS[code] : 'Sign-in did not complete. Please try again, or use the other provider.';
