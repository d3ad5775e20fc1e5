// Same-origin calls to the service's own API. The session cookie is HttpOnly: the page never sees it,
// the browser attaches it.

export class ApiError extends Error {
  constructor(status, body, headers) {
    const envelope = body !== null && typeof body === 'object' && typeof body.error === 'object' ? body.error : null;
    super(envelope?.message ?? (status === 0 ? 'Network error' : `HTTP ${status}`));
    this.name = 'ApiError';
    this.status = status;
    this.details = envelope?.details ?? {};
    this.code = typeof this.details.code === 'string' ? this.details.code : status === 0 ? 'network_error' : 'http_error';
    this.requestId = envelope?.request_id ?? headers?.get('X-Request-ID') ?? null;
    const header = Number(headers?.get('Retry-After'));
    this.retryAfter = Number.isFinite(this.details.retry_after) ? this.details.retry_after : Number.isFinite(header) && header > 0 ? header : null;
  }
}

/** Where a page without a valid session goes: the sign-in page, saying why when it is not the first visit. */
export const signInUrl = (reason) => (reason === undefined ? '/' : `/?error=${encodeURIComponent(reason)}`);

let onUnauthorized = (error) => {
  window.location.assign(signInUrl(error.code === 'invalid_credentials' ? 'session_expired' : undefined));
};

/** Tests and pages may replace the 401 reaction (the default leaves for the sign-in page). */
export const setUnauthorizedHandler = (handler) => {
  onUnauthorized = handler;
};

export const api = async (path, { method = 'GET', body, headers = {} } = {}) => {
  const init = {
    method,
    credentials: 'same-origin',
    headers: { Accept: 'application/json', ...headers },
  };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    throw new ApiError(0, null, null);
  }
  const text = await response.text();
  let data = null;
  if (text !== '') {
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
  }
  if (!response.ok) {
    const error = new ApiError(response.status, data, response.headers);
    if (response.status === 401) {
      onUnauthorized(error);
    }
    throw error;
  }
  return data;
};

/**
 * A GET whose body is kept as the server sent it (a download in the format `accept` names); failures are
 * ApiErrors like api()'s.
 */
export const apiText = async (path, accept) => {
  let response;
  try {
    response = await fetch(path, { credentials: 'same-origin', headers: { Accept: accept } });
  } catch {
    throw new ApiError(0, null, null);
  }
  const text = await response.text();
  if (!response.ok) {
    let data = null;
    try {
      data = JSON.parse(text);
    } catch {
      data = null;
    }
    const error = new ApiError(response.status, data, response.headers);
    if (response.status === 401) {
      onUnauthorized(error);
    }
    throw error;
  }
  return { text, type: response.headers.get('Content-Type') ?? accept };
};

/** A GET of a binary body (a dataset's zip archive), kept as a Blob; failures are ApiErrors like api()'s. */
export const apiBlob = async (path, accept) => {
  let response;
  try {
    response = await fetch(path, { credentials: 'same-origin', headers: { Accept: accept } });
  } catch {
    throw new ApiError(0, null, null);
  }
  if (!response.ok) {
    const data = await response.json().catch(() => null);
    const error = new ApiError(response.status, data, response.headers);
    if (response.status === 401) {
      onUnauthorized(error);
    }
    throw error;
  }
  try {
    return await response.blob();
  } catch {
    // The archive was cut short (the run failed mid-stream): never offered as a whole file.
    throw new ApiError(0, null, response.headers);
  }
};
